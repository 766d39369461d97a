import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer, SILENT, timed } from "../support/faults.ts";
import type { TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { exportedSpans } from "../support/otel.ts";

/** How long a flush to a server that did not answer the last one waits for an answer (the SDK's constant). */
const RECHECK_MS = 2_000;
/** What a call may take beyond its wait on a slow machine. */
const SLACK_MS = 1_500;

function setUp(server: TestServer, spans: SvcSpanProcessorParams, clientFlushTimeout: number) {
  const keys = { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" };
  const processor = new SvcSpanProcessor({ ...keys, flushInterval: 3600, ...spans }, {});
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const svc = new SvcClient({ ...keys, flushInterval: 3600, flushAt: 1000, flushTimeout: clientFlushTimeout });
  onTestFinished(async () => {
    await Promise.all([provider.shutdown(), svc.shutdown()]);
  });
  const tracer = provider.getTracer("svc-sdk");
  for (let i = 0; i < 5; i++) tracer.startSpan(`s${i}`).end();
  for (let i = 0; i < 3; i++) svc.score.create({ name: `score${i}`, value: i, traceId: "t" });
  return { processor, provider, svc };
}

describe("a server that accepts connections and never answers", () => {
  it("holds forceFlush, score flush and both shutdowns in turn for the first deadline and a few seconds, not each deadline", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await faultServer(SILENT);
    const FIRST_S = 4;
    const CLIENT_S = 8;
    const { provider, svc } = setUp(server, { flushTimeout: FIRST_S, timeout: 30 }, CLIENT_S);

    const forceFlush = await timed(() => provider.forceFlush());
    const scoreFlush = await timed(() => svc.score.flush());
    const clientShutdown = await timed(() => svc.shutdown());
    const providerShutdown = await timed(() => provider.shutdown());
    const total = forceFlush.ms + scoreFlush.ms + clientShutdown.ms + providerShutdown.ms;

    // Before, each call waited its own deadline: 4 + 8 + 8 + 4 = 24 s.
    expect(forceFlush.ms).toBeGreaterThanOrEqual(FIRST_S * 1000 - 50);
    for (const later of [scoreFlush, clientShutdown, providerShutdown])
      expect(later.ms).toBeLessThan(RECHECK_MS + SLACK_MS);
    expect(total).toBeLessThan(FIRST_S * 1000 + 3 * RECHECK_MS + SLACK_MS);
    expect(svc.score.health().dropped.shutdown).toBe(3);
    expect(logs.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /^\[Svc SDK\] SvcSpanProcessor: shutdown\(\) waits 2 s to deliver 5 spans, and up to 4 s \(flushTimeout\) only if the server answers again: an earlier flush gave up on it without an answer/,
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
    expect(shut.ms).toBeLessThan(RECHECK_MS + SLACK_MS);
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
