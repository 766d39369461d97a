import { describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";

// Each program runs in a fresh process, so that it finds the global registry as another copy of the SDK left it.
// ARCHITECTURE.md ("The global registry") lists each entry with its shape.

const UNSHARED_LINE = /global key Symbol\.for\("([\w.-]+)"\) holds/g;

function unsharedWarnings(stderr: string): string[] {
  return [...stderr.matchAll(UNSHARED_LINE)].map(([, name]) => name ?? "");
}

describe("the global registry shared by copies of the SDK", () => {
  it("keeps the ten entries in one registry with its version, and the tracer provider also where 6.0.0 reads it", async () => {
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
      const keys = Object.getOwnPropertySymbols(globalThis)
        .map((key) => key.description)
        .filter((name) => name === "svc" || name?.startsWith("svc."))
        .sort();
      const registry = globalThis[Symbol.for("svc.registry")];
      console.log(JSON.stringify({
        keys,
        version: registry.version,
        entries: [...registry.entries.keys()].sort(),
        tracerWhere600ReadsIt: registry.entries.get("tracer") === globalThis[Symbol.for("svc")],
      }));
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "")).toEqual({
      keys: ["svc", "svc.registry"],
      version: 1,
      entries: [
        "delivery-metrics",
        "exit",
        "held-repeats",
        "interceptor",
        "logger",
        "processor-presence",
        "processor-probes",
        "secrets",
        "tracer",
        "unanswered-servers",
      ],
      tracerWhere600ReadsIt: true,
    });
  });

  it("keeps logging when 6.0.0 made its logger object, in another shape, and says so once", async () => {
    const result = await runChild(`
      import { getGlobalLogger } from "@svc/core";
      // The logger object as 6.0.0 wrote it: no version, a logger object instead of level and sink.
      globalThis[Symbol.for("svc.logger")] = { generation: 0, logger: { level: 1 } };
      getGlobalLogger().warn("first line");
      getGlobalLogger().warn("second line");
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(unsharedWarnings(result.stderr)).toEqual(["svc.logger"]);
    expect(result.stderr).toContain("does not read that object. It keeps its own log level and sink");
    expect(result.stderr).toContain("[Svc SDK] first line");
    expect(result.stderr).toContain("[Svc SDK] second line");
  });

  it("uses its own tracer provider next to the previous major's object, and says so once", async () => {
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
    expect(unsharedWarnings(result.stderr)).toEqual(["svc"]);
    expect(result.stderr).toContain("an object of a shape without a version");
    expect(result.stderr).toContain("It keeps its own tracer provider (setSvcTracerProvider)");
  });

  it("shares the tracer provider object that 6.0.0 made without a version", async () => {
    const result = await runChild(`
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { getSvcTracerProvider } from "@svc/tracing";
      const provider = new BasicTracerProvider();
      globalThis[Symbol.for("svc")] = { tracerProvider: provider };
      console.log(JSON.stringify({ same: getSvcTracerProvider() === provider }));
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toEqual({ same: true });
    expect(unsharedWarnings(result.stderr)).toEqual([]);
  });

  it("puts its tracer provider object where a 6.0.0 loaded later reads it", async () => {
    const result = await runChild(`
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { setSvcTracerProvider } from "@svc/tracing";
      const provider = new BasicTracerProvider();
      setSvcTracerProvider(provider);
      // What 6.0.0 reads: the object under Symbol.for("svc"), without checking its shape.
      console.log(JSON.stringify({ same: globalThis[Symbol.for("svc")].tracerProvider === provider }));
    `);

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toEqual({ same: true });
  });

  it("keeps a registry of its own when a newer copy made the registry in another version, and says so once", async () => {
    const result = await runChild(`
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      // Made before this copy is loaded (loading it reads the registry).
      globalThis[Symbol.for("svc.registry")] = { version: 9, anything: true };
      const { SvcSpanProcessor } = await import("@svc/otel");
      const { setSvcTracerProvider, startActiveObservation } = await import("@svc/tracing");
      const processor = new SvcSpanProcessor({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk-secret",
        flushOnExit: false });
      setSvcTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
      startActiveObservation("pending at exit", () => undefined);
      process.exit(0);
    `);

    expect(unsharedWarnings(result.stderr)).toEqual(["svc.registry"]);
    expect(result.stderr).toContain("holds version 9 of its shape");
    expect(result.stderr).toContain(
      "this copy reads version 1. It keeps its own tracer provider (setSvcTracerProvider), log level and sink",
    );
    // The exit line still counts the span: this copy watches its own list.
    expect(result.stderr).toContain("the process is exiting with 1 span not delivered");
  });
});
