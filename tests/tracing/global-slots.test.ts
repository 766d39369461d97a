import { describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";

// Each program runs in a fresh process, so that it finds the global slots as another copy of the SDK left them.
// ARCHITECTURE.md ("Global slots") lists each slot with its shape and version.

const SLOT_LINE = /global slot Symbol\.for\("([\w.-]+)"\) holds/g;

function slotWarnings(stderr: string): string[] {
  return [...stderr.matchAll(SLOT_LINE)].map(([, name]) => name ?? "");
}

describe("global slots shared by copies of the SDK", () => {
  it("writes its version into each of the ten slots it creates", async () => {
    const result = await runChild(`
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { SvcClient } from "@svc/client";
      import { installSvcTestKit } from "@svc/otel/testing";
      import { startActiveObservation } from "@svc/tracing";

      const kit = installSvcTestKit({ provider: BasicTracerProvider });
      const svc = new SvcClient({ publicKey: "pk-slots", secretKey: "sk-slots-secret" });
      startActiveObservation("one", (span) => svc.score.trace({ otelSpan: span.otelSpan }, { name: "n", value: 1 }));
      await kit.collect();
      await svc.doctor();
      await svc.shutdown();
      await kit.uninstall();
      const slots = Object.getOwnPropertySymbols(globalThis)
        .filter((key) => key.description === "svc" || key.description?.startsWith("svc."))
        .map((key) => [key.description, globalThis[key].version])
        .sort();
      console.log(JSON.stringify(slots));
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "")).toEqual([
      ["svc", 1],
      ["svc.delivery-metrics.v2", 2],
      ["svc.exit", 1],
      ["svc.logger", 2],
      ["svc.processor-presence.v2", 2],
      ["svc.processor-probes", 1],
      ["svc.repeat-log.held", 1],
      ["svc.secrets", 1],
      ["svc.transport-interceptor", 1],
      ["svc.unanswered-servers", 1],
    ]);
  });

  it("keeps logging when 6.0.0 made the logger slot in its older shape, and says so once", async () => {
    const result = await runChild(`
      import { getGlobalLogger } from "@svc/core";
      // The logger slot as 6.0.0 wrote it: no version, a logger object instead of level and sink.
      globalThis[Symbol.for("svc.logger")] = { generation: 0, logger: { level: 1 } };
      getGlobalLogger().warn("first line");
      getGlobalLogger().warn("second line");
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(slotWarnings(result.stderr)).toEqual(["svc.logger"]);
    expect(result.stderr).toContain("this copy reads version 2. It keeps its own log level and sink");
    expect(result.stderr).toContain("[Svc SDK] first line");
    expect(result.stderr).toContain("[Svc SDK] second line");
  });

  it("uses its own tracer provider slot next to the previous major's, and says so once", async () => {
    const result = await runChild(`
      import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
      import { getSvcTracerProvider, setSvcTracerProvider, startActiveObservation } from "@svc/tracing";
      globalThis[Symbol.for("svc")] = { isolatedTracerProvider: null };
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      setSvcTracerProvider(provider);
      startActiveObservation("kept apart", () => undefined);
      console.log(JSON.stringify({
        spans: exporter.getFinishedSpans().map((span) => span.name),
        same: getSvcTracerProvider() === provider,
        previous: globalThis[Symbol.for("svc")],
      }));
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toEqual({
      spans: ["kept apart"],
      same: true,
      previous: { isolatedTracerProvider: null },
    });
    expect(slotWarnings(result.stderr)).toEqual(["svc"]);
    expect(result.stderr).toContain("an object of a shape without a version");
  });

  it("shares the tracer provider slot that 6.0.0 made without a version", async () => {
    const result = await runChild(`
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { getSvcTracerProvider } from "@svc/tracing";
      const provider = new BasicTracerProvider();
      globalThis[Symbol.for("svc")] = { tracerProvider: provider };
      console.log(JSON.stringify({ same: getSvcTracerProvider() === provider }));
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toEqual({ same: true });
    expect(slotWarnings(result.stderr)).toEqual([]);
  });

  it("keeps its own exit list when a newer copy made that slot in another version", async () => {
    const result = await runChild(`
      import { SvcSpanProcessor } from "@svc/otel";
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { setSvcTracerProvider, startActiveObservation } from "@svc/tracing";
      globalThis[Symbol.for("svc.exit")] = { version: 9, anything: true };
      const processor = new SvcSpanProcessor({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk-secret",
        flushOnExit: false });
      setSvcTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
      startActiveObservation("pending at exit", () => undefined);
      process.exit(0);
    `);

    expect(slotWarnings(result.stderr)).toEqual(["svc.exit"]);
    expect(result.stderr).toContain("holds version 9 of its shape");
    // The exit line still counts the span: this copy watches its own list.
    expect(result.stderr).toContain("the process is exiting with 1 span not delivered");
  });
});
