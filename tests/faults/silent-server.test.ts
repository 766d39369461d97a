import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer, SILENT, timed } from "../support/faults.ts";
import type { TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { exportedSpans } from "../support/otel.ts";

/** What a call may take beyond its deadline on a loaded machine (CONTRIBUTING.md). */
const MARGIN_MS = 3_000;
const TRACES = "/api/public/otel/v1/traces";

function setUp(server: TestServer, spans: SvcSpanProcessorParams, clientFlushTimeout: number, clientTimeout?: number) {
  const keys = { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" };
  const processor = new SvcSpanProcessor({ ...keys, flushInterval: 3600, ...spans }, {});
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const client = { flushInterval: 3600, flushAt: 1000, flushTimeout: clientFlushTimeout, timeout: clientTimeout };
  const svc = new SvcClient({ ...keys, ...client });
  onTestFinished(async () => {
    await Promise.all([provider.shutdown(), svc.shutdown()]);
  });
  const tracer = provider.getTracer("svc-sdk");
  for (let i = 0; i < 5; i++) tracer.startSpan(`s${i}`).end();
  for (let i = 0; i < 3; i++) svc.score.create({ name: `score${i}`, value: i, traceId: "t" });
  return { processor, provider, svc, tracer };
}

describe("a server that accepts connections and never answers", () => {
  it("ends forceFlush, score flush and both shutdowns in turn within the first deadline and one request's timeout", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await faultServer(SILENT);
    const FIRST_S = 4;
    const ATTEMPT_S = 2;
    const { provider, svc } = setUp(server, { flushTimeout: FIRST_S, timeout: ATTEMPT_S }, 8, ATTEMPT_S);

    const forceFlush = await timed(() => provider.forceFlush());
    const scoreFlush = await timed(() => svc.score.flush());
    const clientShutdown = await timed(() => svc.shutdown());
    const providerShutdown = await timed(() => provider.shutdown());
    const total = forceFlush.ms + scoreFlush.ms + clientShutdown.ms + providerShutdown.ms;

    // Each call waiting its own deadline would take 4 + 8 + 8 + 4 = 24 s.
    expect(forceFlush.ms).toBeGreaterThanOrEqual(FIRST_S * 1000 - 50);
    expect(total).toBeLessThan((FIRST_S + ATTEMPT_S) * 1000 + MARGIN_MS);
    expect(svc.score.health().dropped.shutdown).toBe(3);
    const messages = logs.map((l) => l.message);
    const drops = messages.filter((m) => m.includes("not delivered before shutdown"));
    expect(drops).toHaveLength(2);
    for (const line of drops) {
      expect(line).toContain("the server answered no request");
      expect(line).not.toContain("the shutdown deadline passed");
    }
    expect(messages).toContain(
      "[Svc SDK] SvcSpanProcessor: forceFlush() gave up after 4 s with 5 spans not yet delivered; they stay queued and are retried",
    );
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^\[Svc SDK\] ScoreManager: flush\(\) gave up after 2 s, as the server answered no request/,
      ),
    );
  });

  it("delivers at shutdown what a flush gave up on, once the server answers again", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(SILENT);
    // Each attempt waits 1 s for an answer; the flush gives up after 3 s.
    const { processor, provider } = setUp(server, { flushTimeout: 3, timeout: 1 }, 3);

    await provider.forceFlush();
    const given = processor.health();
    server.reply(() => ({ status: 200, json: {} }));
    const shut = await timed(() => provider.shutdown());

    expect(given.queued + given.inFlight).toBe(5);
    expect(processor.health()).toMatchObject({ sent: 5, dropped: expect.objectContaining({ shutdown: 0 }) });
    expect(new Set(exportedSpans(server).map((s) => s.name)).size).toBe(5);
    expect(shut.ms).toBeLessThan(3_000 + MARGIN_MS);
  });
});

describe("a server that leaves the first request of each route unanswered and answers later ones in 4 s", () => {
  /** Silent to the first request of each route; every later one is answered, 4 s after it arrived. */
  function patient() {
    const answered = new Set<string>();
    return faultServer((req) => {
      if (!answered.has(req.path)) {
        answered.add(req.path);
        return SILENT(req);
      }
      return { status: 200, json: {}, delayMs: 4_000 };
    });
  }

  it("delivers at shutdown the batch sent after a flush gave up (flushTimeout 5 s)", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await patient();
    const { processor, provider, svc, tracer } = setUp(server, { flushTimeout: 5, flushAt: 1000 }, 5);

    const flushA = await timed(() => Promise.all([provider.forceFlush(), svc.flush()]));
    for (let i = 0; i < 5; i++) tracer.startSpan(`b${i}`).end();
    for (let i = 0; i < 3; i++) svc.score.create({ name: `b${i}`, value: i, traceId: "t" });
    const shutB = await timed(() => Promise.all([svc.shutdown(), provider.shutdown()]));

    expect(flushA.ms).toBeLessThan(5_000 + MARGIN_MS);
    expect(shutB.ms).toBeLessThan(5_000 + MARGIN_MS);
    const delivered = exportedSpans(server)
      .map((s) => s.name)
      .filter((n) => n.startsWith("b"));
    expect(delivered.sort()).toEqual(["b0", "b1", "b2", "b3", "b4"]);
    expect(processor.health()).toMatchObject({ sent: 5, dropped: expect.objectContaining({ shutdown: 5 }) });
    expect(svc.score.health()).toMatchObject({ sent: 3, dropped: expect.objectContaining({ shutdown: 3 }) });
    const drops = logs.map((l) => l.message).filter((m) => m.includes("not delivered before shutdown"));
    expect(drops).toHaveLength(2);
    for (const line of drops) expect(line).toContain("the shutdown deadline passed");
  });
});

describe("a batch in flight when the shutdown deadline passes", () => {
  it("is counted sent, not dropped, when the server accepts it a moment after the deadline, and is sent once", async () => {
    const logs = captureLogs(LogLevel.WARN);
    let shutdownAt = Number.POSITIVE_INFINITY;
    // Answers 1.08 s after shutdown() began: past its 1 s deadline, within the moment sends under way still get.
    const server = await faultServer(() => ({
      status: 200,
      json: {},
      delayMs: Math.max(0, shutdownAt + 1_080 - performance.now()),
    }));
    const { processor, provider } = setUp(server, { flushTimeout: 1, timeout: 5 }, 1);

    shutdownAt = performance.now();
    await provider.shutdown();

    expect(server.seen.filter((r) => r.path === TRACES)).toHaveLength(1);
    expect(processor.health()).toMatchObject({ sent: 5, dropped: expect.objectContaining({ shutdown: 0 }) });
    expect(logs.map((l) => l.message).filter((m) => m.includes("SvcSpanProcessor"))).toEqual([]);
  });
});

describe("a first shutdown whose batch takes longer than one request's timeout, mask and answer together", () => {
  it("waits for the answer of the request under way and delivers the batch", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await faultServer(() => ({ status: 200, json: {}, delayMs: 1_200 }));
    const mask = async ({ data }: { data: unknown }) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return data;
    };
    const keys = { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" };
    // Each step inside the 2 s timeout: 1.5 s of mask, then 1.2 s for the answer.
    const processor = new SvcSpanProcessor({ ...keys, flushInterval: 3600, timeout: 2, mask }, {});
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    onTestFinished(() => provider.shutdown());
    provider
      .getTracer("svc-sdk")
      .startSpan("s", { attributes: { "svc.observation.input": "in" } })
      .end();

    await provider.shutdown();

    expect(processor.health()).toMatchObject({ sent: 1, dropped: expect.objectContaining({ shutdown: 0 }) });
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["s"]);
    expect(logs).toEqual([]);
  });
});

describe("the start of a shutdown with data held while the server fails", () => {
  it("says in one line how long it will wait at most, and why", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await faultServer(() => ({ status: 503, json: { message: "down" } }));
    const { processor, provider } = setUp(server, { flushTimeout: 1, timeout: 1, flushAt: 1 }, 1);
    await waitForFailure(() => processor.health().retries > 0);

    await provider.shutdown();

    const lines = logs.map((l) => l.message).filter((m) => m.includes("shutdown() waits"));
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[Svc SDK\] SvcSpanProcessor: shutdown\(\) waits at most 1 s \(flushTimeout\) to deliver 5 spans, since the last attempt failed \(HTTP 503 from 127\.0\.0\.1:\d+ POST \/api\/public\/otel\/v1\/traces: \{"message":"down"\}\); what is not delivered by then is dropped\.$/,
      ),
    ]);
  });
});

/** Waits (bounded, 5 s) until `failed()` says an attempt has failed. */
async function waitForFailure(failed: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !failed(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!failed()) throw new Error("no attempt failed within 5 s");
}
