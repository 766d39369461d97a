import { type Context, context, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { RepeatLog } from "@svc/core";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { resolveProcessorConfig } from "../../packages/otel/src/config.ts";
import type { OutgoingSpan } from "../../packages/otel/src/pipeline/enrich.ts";
import { ExportStage } from "../../packages/otel/src/pipeline/export.ts";
import { FilterStage } from "../../packages/otel/src/pipeline/filter.ts";
import { OpenSpans, type StartedSpan, StartStage } from "../../packages/otel/src/pipeline/start.ts";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans, otlpRequests } from "../support/otel.ts";

/** The spans a provider started, by name, as its only processor was given them; `onEnd` sees them end. */
function recordingProvider(
  onStart: (span: StartedSpan, parent: Context) => void,
  onEnd: (span: ReadableSpan) => void = () => {},
) {
  const started = new Map<string, StartedSpan>();
  const processor: SpanProcessor = {
    onStart: (span, parent) => {
      started.set(span.name, span);
      onStart(span, parent);
    },
    onEnd,
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  return { provider, attributesOf: (name: string) => started.get(name)?.attributes ?? {} };
}

const KEYS = { publicKey: "pk", secretKey: "sk" };

describe("StartStage", () => {
  function stage(params = {}) {
    const config = resolveProcessorConfig({ ...KEYS, ...params }, {});
    const filter = new FilterStage(undefined);
    return new StartStage(config, (span) => filter.expects(span));
  }

  it("marks the first svc span of a trace as the app root, and not its children", () => {
    const start = stage();
    const { provider, attributesOf } = recordingProvider((span, parent) => start.onStart(span, parent));
    const tracer = provider.getTracer("svc-sdk");

    const root = tracer.startSpan("root");
    tracer.startSpan("child", {}, trace.setSpan(context.active(), root));

    expect(attributesOf("root")[A.IS_APP_ROOT]).toBe(true);
    expect(attributesOf("child")[A.IS_APP_ROOT]).toBeUndefined();
  });

  it("recognises the parent by its trace and span ids, also when its context was built by hand", () => {
    const start = stage();
    const { provider, attributesOf } = recordingProvider((span, parent) => start.onStart(span, parent));
    const tracer = provider.getTracer("svc-sdk");
    const root = tracer.startSpan("root");
    const { traceId, spanId } = root.spanContext();
    const copy = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED });

    tracer.startSpan("child", {}, copy);

    expect(attributesOf("child")[A.IS_APP_ROOT]).toBeUndefined();
  });

  it("stamps environment and release on spans that do not carry them", () => {
    const start = stage({ environment: "staging", release: "r-7" });
    const { provider, attributesOf } = recordingProvider((span) => start.onStart(span, ROOT_CONTEXT));
    const tracer = provider.getTracer("any-scope");

    tracer.startSpan("own", { attributes: { [A.ENVIRONMENT]: "prod" } });
    tracer.startSpan("plain");

    expect(attributesOf("own")[A.ENVIRONMENT]).toBe("prod");
    expect(attributesOf("plain")).toMatchObject({
      [A.ENVIRONMENT]: "staging",
      [A.RELEASE]: "r-7",
    });
  });
});

describe("OpenSpans", () => {
  const T1 = "1".repeat(32);
  const T2 = "2".repeat(32);
  const S = "a".repeat(16);

  it("keeps spans of two traces that share a span id apart", () => {
    const open = new OpenSpans();
    open.add(T1, S);
    open.add(T2, S);

    expect([open.has(T1, S), open.has(T2, S), open.size]).toEqual([true, true, 2]);
    expect(open.delete(T1, S)).toBe(true);
    expect([open.has(T1, S), open.has(T2, S), open.size]).toEqual([false, true, 1]);
    expect(open.delete(T1, S)).toBe(false);
    expect(open.delete(T2, S)).toBe(true);
    expect([open.has(T2, S), open.size]).toEqual([false, 0]);
  });

  it("counts a span added twice once, and forgets only what it holds", () => {
    const open = new OpenSpans();
    open.add(T1, S);
    open.add(T1, S);

    expect(open.size).toBe(1);
    expect(open.delete(T2, S)).toBe(false);
    expect(open.delete(T1, "b".repeat(16))).toBe(false);
    expect(open.delete(T1, S)).toBe(true);
    expect(open.size).toBe(0);
  });

  it("forgets the oldest span when full, also one of several sharing a span id", () => {
    const open = new OpenSpans(2);
    open.add(T1, S);
    open.add(T2, S);
    open.add(T1, "b".repeat(16));

    expect(open.size).toBe(2);
    expect([open.has(T1, S), open.has(T2, S), open.has(T1, "b".repeat(16))]).toEqual([false, true, true]);
    open.add(T1, "c".repeat(16));
    expect([open.has(T2, S), open.has(T1, "b".repeat(16)), open.has(T1, "c".repeat(16))]).toEqual([false, true, true]);
  });
});

describe("FilterStage", () => {
  function endedSpan(scope: string, name = "s"): ReadableSpan {
    const ended: ReadableSpan[] = [];
    const { provider } = recordingProvider(
      () => {},
      (span) => ended.push(span),
    );
    provider.getTracer(scope).startSpan(name).end();
    const [span] = ended;
    if (span === undefined) throw new Error(`the span "${name}" did not end`);
    return span;
  }

  it("accepts svc and known LLM spans by default, and logs what it filters out at debug level", () => {
    const logs = captureLogs();
    const filter = new FilterStage(undefined);

    expect(filter.accepts(endedSpan("svc-sdk"))).toBe(true);
    expect(filter.accepts(endedSpan("openinference.instrumentation.openai"))).toBe(true);
    expect(filter.accepts(endedSpan("@opentelemetry/instrumentation-http", "GET"))).toBe(false);
    expect(logs).toEqual([
      {
        level: "debug",
        message:
          '[Svc SDK] SvcSpanProcessor: spans filtered out (not exported): "GET" from scope "@opentelemetry/instrumentation-http"',
      },
    ]);
  });

  it("drops a span whose custom filter throws, logging it once and counting the repeats", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();
    const filter = new FilterStage(() => {
      throw new Error("filter bug");
    }, repeats);

    for (let i = 0; i < 3; i++) expect(filter.accepts(endedSpan("svc-sdk"))).toBe(false);
    repeats.report();

    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      '[Svc SDK] SvcSpanProcessor: shouldExportSpan threw; span not exported: "s": filter bug',
      "[Svc SDK] SvcSpanProcessor: shouldExportSpan threw; span not exported: 2 more spans since the last message (3 in total)",
    ]);
  });
});

describe("ExportStage", () => {
  async function exportStage(reply: Parameters<typeof startServer>[0], params = {}) {
    const server = await startServer(reply);
    onTestFinished(() => server.close());
    const config = resolveProcessorConfig({ ...KEYS, baseUrl: server.url, compression: "none", ...params }, {});
    return { server, stage: new ExportStage(config, () => false) };
  }

  function batch(count: number, size: number): OutgoingSpan[] {
    const spans: OutgoingSpan[] = [];
    const { provider } = recordingProvider(
      () => {},
      (span) => spans.push({ span }),
    );
    const tracer = provider.getTracer("svc-sdk");
    for (let i = 0; i < count; i++)
      tracer.startSpan(`s${i}`, { attributes: { [A.OBSERVATION_INPUT]: "x".repeat(size) } }).end();
    return spans;
  }

  it("halves a batch the server refuses with 413 until each part fits, and loses nothing", async () => {
    const { server, stage } = await exportStage((req) =>
      req.rawBody.length > 3000 ? { status: 413 } : { status: 200 },
    );

    const outcome = await stage.send(batch(8, 500), new AbortController().signal);

    expect(outcome).toMatchObject({ delivered: 8, dropped: [] });
    const accepted = otlpRequests(server).filter((r) => r.rawBody.length <= 3000);
    const names = accepted.flatMap((r) =>
      (r.json as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] }).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => span.name)),
      ),
    );
    expect(names).toEqual(["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]);
    expect(accepted.length).toBeGreaterThan(1);
  });

  it("cuts the largest value of a single span that is still too large, with a marker, rather than drop it", async () => {
    const { server, stage } = await exportStage((req) =>
      req.rawBody.length > 4000 ? { status: 413 } : { status: 200 },
    );

    const outcome = await stage.send(batch(1, 6000), new AbortController().signal);

    expect(outcome.delivered).toBe(1);
    const input = String(attributesOf(exportedSpans(server).at(-1)!)[A.OBSERVATION_INPUT]);
    expect(input.endsWith("...[truncated: the span was too large to send]")).toBe(true);
    expect(input.length).toBeLessThan(4000);
  });

  it("splits a batch whose body would exceed maxRequestBytes before sending it", async () => {
    const { server, stage } = await exportStage(() => ({ status: 200 }), { maxRequestBytes: 4096 });

    const outcome = await stage.send(batch(10, 1000), new AbortController().signal);

    expect(outcome.delivered).toBe(10);
    for (const request of otlpRequests(server)) expect(request.rawBody.length).toBeLessThanOrEqual(4096);
  });

  it("keeps a batch for another attempt on a retryable failure, and drops it on 401 with a hint about the keys", async () => {
    const unavailable = await exportStage(() => ({ status: 503, headers: { "retry-after": "2" } }));
    const refused = await exportStage(() => ({ status: 401, json: { message: "bad key" } }));
    const items = batch(2, 10);

    const retry = await unavailable.stage.send(items, new AbortController().signal);
    const auth = await refused.stage.send(items, new AbortController().signal);

    expect(retry).toMatchObject({ delivered: 0, retry: { items, retryAfterMs: 2000, fault: { status: 503 } } });
    expect(auth).toMatchObject({ delivered: 0, dropped: [{ count: 2, reason: "auth" }] });
    expect(auth.dropped?.[0]?.detail).toMatch(/HTTP 401 from .*\. Check the public and secret keys/);
  });

  it("sends nothing without credentials, dropping the batch with the reason", async () => {
    const server = await startServer();
    onTestFinished(() => server.close());
    captureLogs();
    const stage = new ExportStage(resolveProcessorConfig({ baseUrl: server.url }, {}), () => false);

    const outcome = await stage.send(batch(1, 10), new AbortController().signal);

    expect(outcome).toMatchObject({ delivered: 0, dropped: [{ count: 1, reason: "failed" }] });
    expect(server.seen).toHaveLength(0);
  });
});
