import { SpanStatusCode } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { exportedSpans, otlpRequests, svcProvider } from "../support/otel.ts";

async function sink() {
  const server = await startServer();
  onTestFinished(server.close);
  return server;
}

describe("OTLP export on the wire", () => {
  it("posts to the OTLP traces route with exactly auth, SDK identity, ingestion version, User-Agent, type and encoding", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server);

    svc.startSpan("work").end();
    await processor.forceFlush();

    const [request] = otlpRequests(server);
    expect(request?.method).toBe("POST");
    const names = (request?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    // Only these: no browser-style headers (sec-fetch-mode, accept-language, ...) that a fetch implementation adds.
    expect(names.sort()).toEqual([
      "authorization",
      "connection",
      "content-encoding",
      "content-length",
      "content-type",
      "host",
      "user-agent",
      "x-svc-ingestion-version",
      "x-svc-public-key",
      "x-svc-sdk-name",
      "x-svc-sdk-version",
    ]);
    expect(request?.headers).toMatchObject({
      authorization: `Basic ${Buffer.from("pk-test:sk-test").toString("base64")}`,
      "content-type": "application/json",
      "content-encoding": "gzip",
      "x-svc-sdk-name": "javascript",
      "x-svc-sdk-version": expect.stringMatching(/^6\.\d+\.\d+/),
      "x-svc-public-key": "pk-test",
      "x-svc-ingestion-version": "4",
    });
    const version = request?.headers["x-svc-sdk-version"];
    expect(request?.headers["user-agent"]).toMatch(new RegExp(`^svc-sdk-js/${version} \\(node \\d+`));
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["work"]);
  });

  it("sends exactly one ingestion-version header, with the value from additionalHeaders", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server, { additionalHeaders: { "X-Svc-Ingestion-Version": "3" } });

    svc.startSpan("work").end();
    await processor.forceFlush();

    const raw = otlpRequests(server)[0]?.rawHeaders ?? [];
    const values = raw.filter((_, i) => i % 2 === 0 && raw[i]?.toLowerCase() === "x-svc-ingestion-version");
    expect(values).toHaveLength(1);
    expect(otlpRequests(server)[0]?.headers["x-svc-ingestion-version"]).toBe("3");
  });

  const rows: {
    name: string;
    params: { compression?: "gzip" | "none" };
    env: Record<string, string>;
    gzip: boolean;
  }[] = [
    {
      name: "option compression none wins over the environment",
      params: { compression: "none" },
      env: { SVC_OTEL_COMPRESSION: "gzip" },
      gzip: false,
    },
    {
      name: "option compression gzip wins over the environment",
      params: { compression: "gzip" },
      env: { SVC_OTEL_COMPRESSION: "none" },
      gzip: true,
    },
    {
      name: "SVC_OTEL_COMPRESSION wins over the OpenTelemetry variables",
      params: {},
      env: { SVC_OTEL_COMPRESSION: "none", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip" },
      gzip: false,
    },
    {
      name: "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION wins over OTEL_EXPORTER_OTLP_COMPRESSION",
      params: {},
      env: { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "NONE", OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" },
      gzip: false,
    },
    {
      name: "OTEL_EXPORTER_OTLP_COMPRESSION applies when it is the only setting",
      params: {},
      env: { OTEL_EXPORTER_OTLP_COMPRESSION: "none" },
      gzip: false,
    },
    {
      name: "an invalid value falls through to the next setting",
      params: {},
      env: { SVC_OTEL_COMPRESSION: "zstd", OTEL_EXPORTER_OTLP_COMPRESSION: "none" },
      gzip: false,
    },
    { name: "gzip is the default", params: {}, env: {}, gzip: true },
  ];

  it.each(rows)("compression order: $name", async ({ params, env, gzip }) => {
    captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, params, env);

    svc.startSpan("work").end();
    await processor.forceFlush();

    const [request] = otlpRequests(server);
    expect(request?.headers["content-encoding"]).toBe(gzip ? "gzip" : undefined);
    expect(request?.rawBody.subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]))).toBe(gzip);
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["work"]);
  });

  it("sends the same OTLP/JSON body as the OpenTelemetry OTLP/HTTP exporter for the same spans", async () => {
    const ours = await sink();
    const oracle = await sink();
    const { processor } = svcProvider(ours, { compression: "none", mediaUploadEnabled: false });
    const reference = new BatchSpanProcessor(
      new OTLPTraceExporter({ url: `${oracle.url}/api/public/otel/v1/traces`, compression: "none" as never }),
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor, reference] });
    onTestFinished(() => provider.shutdown());
    const svc = provider.getTracer("svc-sdk", "6.0.0");
    const llm = provider.getTracer("openinference.instrumentation.openai");

    const root = svc.startSpan("root", { attributes: { str: "s", int: 3, dbl: 1.5, bool: true, arr: ["a", "b"] } });
    root.addEvent("checkpoint", { step: 1 });
    const child = llm.startSpan("chat", { attributes: { "gen_ai.request.model": "m" } }, undefined);
    child.addLink({ context: root.spanContext(), attributes: { why: "follows" } });
    child.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
    child.end();
    root.end();
    await processor.forceFlush();
    await reference.forceFlush();

    const [mine] = otlpRequests(ours);
    const [theirs] = otlpRequests(oracle);
    expect(mine?.json).toEqual(theirs?.json);
    expect(mine?.body.toString("utf8")).toBe(theirs?.body.toString("utf8"));
  });

  it("gzips a body of many pieces that decodes to the OpenTelemetry exporter's body for the same spans", async () => {
    const ours = await sink();
    const oracle = await sink();
    const { processor } = svcProvider(ours, { compression: "gzip", mediaUploadEnabled: false, flushAt: 100 });
    const reference = new BatchSpanProcessor(
      new OTLPTraceExporter({ url: `${oracle.url}/api/public/otel/v1/traces`, compression: "none" as never }),
      { maxExportBatchSize: 100 },
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor, reference] });
    onTestFinished(() => provider.shutdown());
    const svc = provider.getTracer("svc-sdk", "6.0.0");
    const other = provider.getTracer("openinference.instrumentation.openai", "1.0.0");

    // About 3 KB of text per span, two scopes: the body is made of many pieces.
    for (let i = 0; i < 60; i++) {
      const tracer = i % 3 === 0 ? other : svc;
      tracer
        .startSpan(`span-${i}`, { attributes: { "svc.observation.input": `ünïcode ${i} ${"x".repeat(3000)}` } })
        .end();
    }
    await processor.forceFlush();
    await reference.forceFlush();

    const [mine] = otlpRequests(ours);
    const [theirs] = otlpRequests(oracle);
    expect(mine?.headers["content-encoding"]).toBe("gzip");
    expect(mine?.body.length).toBeGreaterThan(150_000);
    expect(mine?.body.toString("utf8")).toBe(theirs?.body.toString("utf8"));
  });

  it("retries a 503 that carries Retry-After and exports the batch once", async () => {
    const server = await startServer();
    onTestFinished(server.close);
    let calls = 0;
    server.reply(() => (++calls === 1 ? { status: 503, headers: { "retry-after": "0" } } : { status: 200, json: {} }));
    const { svc, processor } = svcProvider(server);

    svc.startSpan("work").end();
    await processor.forceFlush();

    expect(otlpRequests(server)).toHaveLength(2);
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["work", "work"]);
  });

  it("retries after a dropped connection with backoff and exports the batch", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const server = await startServer();
    onTestFinished(server.close);
    let calls = 0;
    server.reply(() => (++calls === 1 ? { destroy: true } : { status: 200, json: {} }));
    const { svc, processor } = svcProvider(server);

    svc.startSpan("work").end();
    const flush = processor.forceFlush();
    await vi.waitFor(() => expect(calls).toBe(1), { timeout: 5000, interval: 5 });
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1200);
    await flush;

    expect(otlpRequests(server)).toHaveLength(2);
  });

  it("aborts an attempt that exceeds the timeout and retries it", async () => {
    const server = await startServer();
    onTestFinished(server.close);
    let calls = 0;
    const never = new Promise<never>(() => undefined);
    server.reply(async () => (++calls === 1 ? never : { status: 200, json: {} }));
    const { svc, processor } = svcProvider(server, { timeout: 0.05 });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });

    svc.startSpan("work").end();
    const flush = processor.forceFlush();
    // The abort runs on real time; the backoff after it on the fake clock.
    await vi.waitFor(
      async () => {
        await vi.advanceTimersByTimeAsync(200);
        expect(calls).toBe(2);
      },
      { timeout: 5000, interval: 20 },
    );
    await flush;

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["work", "work"]);
  });

  it("does not retry a 400 and logs the lost spans at error level", async () => {
    const logs = captureLogs();
    const server = await startServer(() => ({ status: 400, json: { error: "bad span" } }));
    onTestFinished(server.close);
    const { svc, processor } = svcProvider(server);

    svc.startSpan("a").end();
    svc.startSpan("b").end();
    await processor.forceFlush();

    expect(otlpRequests(server)).toHaveLength(1);
    const errors = logs.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(
      /spans dropped, rejected by the server: 2 spans: HTTP 400 from 127\.0\.0\.1:\d+ POST \/api\/public\/otel\/v1\/traces/,
    );
  });

  it("counts spans a user-supplied exporter reports as failed and logs them at error level", async () => {
    const logs = captureLogs();
    const server = await sink();
    const exporter = {
      export: (_spans: unknown[], done: (result: { code: number; error?: Error }) => void) =>
        done({ code: 1, error: new Error("collector refused") }),
      shutdown: async () => undefined,
    };
    const { svc, processor } = svcProvider(server, { exporter });

    svc.startSpan("a").end();
    await processor.forceFlush();

    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      expect.stringMatching(/spans dropped, could not be sent: 1 span: the exporter failed: collector refused/),
    ]);
  });

  it("passes spans to a user-supplied exporter with masked attributes", async () => {
    const server = await sink();
    const exporter = new OTLPTraceExporter({ url: `${server.url}/custom`, compression: "none" as never });
    const { svc, processor } = svcProvider(server, { exporter, mask: () => "***" });

    svc.startSpan("work", { attributes: { "svc.observation.input": "secret", other: "kept" } }).end();
    await processor.forceFlush();

    const [request] = server.seen.filter((r) => r.path === "/custom");
    const body = request?.json as { resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] };
    const attributes = body.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes;
    expect(attributes).toContainEqual({ key: "svc.observation.input", value: { stringValue: "***" } });
    expect(attributes).toContainEqual({ key: "other", value: { stringValue: "kept" } });
    expect(otlpRequests(server)).toHaveLength(0);
  });
});
