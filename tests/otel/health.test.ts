import { LogLevel } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { downServer, faultServer, RETRY_NOW, script } from "../support/faults.ts";
import type { Reply } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { svcProvider, waitForOtlpRequests } from "../support/otel.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HELD = { flushInterval: 3600, flushAt: 1000, flushTimeout: 2 };

describe("SvcSpanProcessor.health()", () => {
  it("starts at zero, with no error, no success and not shut down", async () => {
    const server = await faultServer(() => ({ status: 200, json: {} }));
    const { processor } = svcProvider(server, HELD, {});

    expect(processor.health()).toEqual({
      queued: 0,
      queuedBytes: 0,
      inFlight: 0,
      sent: 0,
      dropped: {
        queueFull: 0,
        tooLarge: 0,
        rejected: 0,
        auth: 0,
        shutdown: 0,
        sampledOut: 0,
        failed: 0,
        spillFull: 0,
        spillExpired: 0,
      },
      retries: 0,
      lastError: undefined,
      lastSuccessAt: undefined,
      shutdown: false,
      spilled: 0,
      replayed: 0,
      onDisk: 0,
      filteredOut: 0,
    });
  });

  it("counts spans queued (and their bytes), then in flight, then sent with the time of the success", async () => {
    let answer: (reply: Reply) => void = () => {};
    const server = await faultServer(
      () =>
        new Promise<Reply>((resolve) => {
          answer = resolve;
        }),
    );
    const { processor, svc } = svcProvider(server, HELD, {});
    for (let i = 0; i < 3; i++)
      svc.startSpan(`s${i}`, { attributes: { "svc.observation.input": "x".repeat(100) } }).end();

    const waiting = processor.health();
    expect(waiting).toMatchObject({ queued: 3, inFlight: 0, sent: 0 });
    expect(waiting.queuedBytes).toBeGreaterThan(300);

    const flushed = processor.forceFlush();
    await waitForOtlpRequests(server, 1);
    expect(processor.health()).toMatchObject({ queued: 0, queuedBytes: 0, inFlight: 3, sent: 0 });

    const before = new Date().toISOString();
    answer({ status: 200, json: {} });
    await flushed;
    const done = processor.health();
    expect(done).toMatchObject({ queued: 0, inFlight: 0, sent: 3, lastError: undefined });
    expect(done.lastSuccessAt).toMatch(ISO);
    expect(done.lastSuccessAt! >= before).toBe(true);
  });

  it("keeps the last error with its kind, status, host and time, and counts the retry", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(script([{ status: 503, json: {}, headers: RETRY_NOW }]));
    const { processor, svc } = svcProvider(server, HELD, {});
    svc.startSpan("s").end();

    await processor.forceFlush();

    const { lastError, retries, sent } = processor.health();
    expect({ retries, sent }).toEqual({ retries: 1, sent: 1 });
    expect(lastError).toMatchObject({
      kind: "status",
      status: 503,
      host: new URL(server.url).host,
      description: expect.stringMatching(/^HTTP 503 from 127\.0\.0\.1:\d+ POST \/api\/public\/otel\/v1\/traces/),
    });
    expect(lastError?.at).toMatch(ISO);
  });

  it("names the error code of a refused connection", async () => {
    captureLogs(LogLevel.ERROR);
    const down = await downServer(() => ({ status: 200 }));
    const { processor, svc } = svcProvider(down, { ...HELD, flushTimeout: 0.3 }, {});
    svc.startSpan("s").end();

    await processor.forceFlush();

    expect(processor.health().lastError).toMatchObject({ kind: "network", code: "ECONNREFUSED" });
  });

  it("keeps the error of a request given up on, with its status and no secret", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(() => ({ status: 401, json: { message: "unknown key" } }));
    const { processor, svc } = svcProvider(server, HELD, {});
    svc.startSpan("s").end();

    await processor.forceFlush();

    const health = processor.health();
    expect(health).toMatchObject({ dropped: expect.objectContaining({ auth: 1 }), lastError: { status: 401 } });
    expect(JSON.stringify(health)).not.toContain("sk-test");
    expect(JSON.stringify(health)).not.toContain(btoa("pk-test:sk-test"));
  });

  it("counts by reason the spans refused as invalid, over the queue limit, too large, and ended after shutdown", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(() => ({ status: 400, json: { error: "bad span" } }));
    const limits = { maxQueueSize: 2, maxRequestBytes: 1024, compression: "none" as const };
    const { processor, svc } = svcProvider(server, { ...HELD, ...limits }, {});
    for (let i = 0; i < 4; i++) svc.startSpan(`s${i}`).end(); // two queued, two over the limit
    await processor.forceFlush();
    const wide: Record<string, string> = {};
    for (let i = 0; i < 40; i++) wide[`svc.observation.metadata.k${i}`] = "v".repeat(60); // cannot be cut to fit
    svc.startSpan("wide", { attributes: wide }).end();
    await processor.forceFlush();
    await processor.shutdown();
    svc.startSpan("late").end();

    expect(processor.health()).toMatchObject({
      dropped: { queueFull: 2, rejected: 2, tooLarge: 1, shutdown: 1, auth: 0, failed: 0, sampledOut: 0, spillFull: 0 },
      shutdown: true,
      sent: 0,
    });
  });
});
