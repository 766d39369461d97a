import { ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { createTraceId, setSvcTracerProvider, startObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans, otlpRequests, svcProvider } from "../support/otel.ts";

// What code written for the previous major relies on from the span processor, checked on the wire.

async function sink(): Promise<TestServer> {
  const server = await startServer();
  onTestFinished(server.close);
  return server;
}

function byName(server: TestServer): Record<string, Record<string, unknown>> {
  return Object.fromEntries(exportedSpans(server).map((s) => [s.name, attributesOf(s)]));
}

describe("span processor options of the previous major", () => {
  it("takes 0 for flushAt, flushInterval and timeout as the defaults, without a warning, and exports", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, { flushAt: 0, flushInterval: 0, timeout: 0 });

    svc.startSpan("work").end();
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["work"]);
    expect(logs.filter((l) => l.level !== "debug")).toEqual([]);
  });

  it("falls through an invalid compression option to SVC_OTEL_COMPRESSION, with one warning naming the value", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(
      server,
      { compression: "bogus" as "gzip" },
      { SVC_OTEL_COMPRESSION: "none" },
    );

    svc.startSpan("work").end();
    await processor.forceFlush();

    const [request] = otlpRequests(server);
    expect(request?.headers["content-encoding"]).toBeUndefined();
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["work"]);
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      '[Svc SDK] SvcSpanProcessor: option compression="bogus" is not one of "gzip", "none"; using "none" (SVC_OTEL_COMPRESSION)',
    ]);
  });

  it("awaits a mask that returns a promise and exports what it resolves to", async () => {
    const server = await sink();
    const mask = async ({ data }: { data: unknown }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return typeof data === "string" ? data.replace(/\d{4}-\d{4}/g, "****") : data;
    };
    const { svc, processor } = svcProvider(server, { mask });

    svc.startSpan("pay", { attributes: { "svc.observation.input": "card 1234-5678" } }).end();
    await processor.forceFlush();

    expect(byName(server).pay?.["svc.observation.input"]).toBe("card ****");
  });

  it("exports the marker for a mask whose promise rejects, and leaves no unhandled rejection", async () => {
    captureLogs();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    onTestFinished(() => {
      process.off("unhandledRejection", onUnhandled);
    });
    const server = await sink();
    const { svc, processor } = svcProvider(server, { mask: () => Promise.reject(new Error("mask down")) });

    svc.startSpan("secret", { attributes: { "svc.observation.output": "token=abc" } }).end();
    await processor.forceFlush();
    await new Promise((resolve) => setImmediate(resolve));

    expect(byName(server).secret?.["svc.observation.output"]).toBe("<fully masked due to failed mask function>"); // the README's marker
    expect(unhandled).toEqual([]);
  });

  it("knows the parent of a span by its ids: a child under a hand-built copy of the parent's context is no second root", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server);

    const root = svc.startSpan("root");
    const { traceId, spanId } = root.spanContext();
    const copy = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    svc.startSpan("child", {}, copy).end();
    root.end();
    await processor.forceFlush();

    const spans = byName(server);
    expect(spans.root?.["svc.internal.is_app_root"]).toBe(true);
    expect(spans.child).not.toHaveProperty("svc.internal.is_app_root");
  });
});

describe("environment", () => {
  it("ignores an environment option that breaks the environment rule, falling back to SVC_TRACING_ENVIRONMENT", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(
      server,
      { environment: "Production" },
      { SVC_TRACING_ENVIRONMENT: "staging" },
    );

    svc.startSpan("work").end();
    await processor.forceFlush();

    expect(byName(server).work?.["svc.environment"]).toBe("staging");
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      '[Svc SDK] SvcSpanProcessor: option environment="Production" is not a valid environment (1-40 characters of a-z, 0-9, _ or -, not starting with "svc"); using "staging" (SVC_TRACING_ENVIRONMENT)',
    ]);
  });

  it("ignores an SVC_TRACING_ENVIRONMENT that breaks the rule, with one warning, and stamps no environment", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, {}, { SVC_TRACING_ENVIRONMENT: "svc-internal" });

    svc.startSpan("work").end();
    await processor.forceFlush();

    expect(byName(server).work).not.toHaveProperty("svc.environment");
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(1);
    expect(logs.find((l) => l.level === "warn")?.message).toContain('ignoring SVC_TRACING_ENVIRONMENT="svc-internal"');
  });
});

describe("createTraceId", () => {
  it("gives a new random id for an empty seed each time, so traces started from two of them stay apart", async () => {
    const server = await sink();
    const processor = new SvcSpanProcessor({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" }, {});
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    setSvcTracerProvider(provider);
    onTestFinished(async () => {
      setSvcTracerProvider(null);
      await provider.shutdown();
    });

    const ids = [await createTraceId(""), await createTraceId(""), await createTraceId("order-1")];
    for (const [i, traceId] of ids.entries()) {
      const parentSpanContext = { traceId, spanId: "0123456789abcdef", traceFlags: TraceFlags.SAMPLED };
      startObservation(`run-${i}`, {}, { parentSpanContext }).end();
    }
    await processor.forceFlush();

    const traceIds = exportedSpans(server).map((s) => s.traceId);
    expect(traceIds).toEqual(ids);
    expect(new Set(traceIds).size).toBe(3);
    expect(ids[2]).toBe(await createTraceId("order-1"));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});
