import { LogLevel } from "@svc/tracing";
import { describe, expect, it, vi } from "vitest";
import { faultServer, SILENT, timed } from "../support/faults.ts";
import { captureLogs } from "../support/logs.ts";
import { exportedSpans, svcProvider } from "../support/otel.ts";
import { batchFiles, itemsOnDisk, spillDir } from "../support/spill.ts";

/** What a call may take beyond its deadline on a loaded machine (CONTRIBUTING.md). */
const MARGIN_MS = 3_000;
const TRACES = "/api/public/otel/v1/traces";

describe("a shutdown with a spill directory waits as one without it", () => {
  it("delivers to a server that failed once and answers the next attempt in 3 s, and writes nothing", async () => {
    const logs = captureLogs(LogLevel.WARN);
    let attempts = 0;
    const server = await faultServer((req) => {
      if (req.path === TRACES && ++attempts === 1) return { status: 503, json: { message: "down" } };
      return { status: 200, json: {}, delayMs: 3_000 };
    });
    const dir = spillDir();
    const { processor, svc } = svcProvider(server, {
      exportMode: "immediate",
      flushTimeout: 8,
      timeout: 5,
      spillDir: dir,
    });
    for (let i = 0; i < 5; i++) svc.startSpan(`a${i}`).end();
    await vi.waitFor(() => expect(processor.health().lastError).toBeDefined(), { timeout: 5_000, interval: 10 });
    for (let i = 0; i < 5; i++) svc.startSpan(`b${i}`).end();

    const shut = await timed(() => processor.shutdown());

    // The retry goes out after the backoff (about 1 s) and is answered 3 s later, within the 8 s flushTimeout.
    expect(shut.ms).toBeGreaterThanOrEqual(3_000);
    expect(shut.ms).toBeLessThan(8_000 + MARGIN_MS);
    expect(processor.health()).toMatchObject({
      sent: 10,
      spilled: 0,
      onDisk: 0,
      dropped: expect.objectContaining({ shutdown: 0 }),
    });
    const names = new Set(exportedSpans(server).map((s) => s.name));
    expect([...names].sort()).toEqual(["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4"]);
    expect(batchFiles(dir)).toEqual([]);
    expect(logs.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /^\[Svc SDK\] SvcSpanProcessor: shutdown\(\) waits at most 8 s \(flushTimeout\) to deliver 10 spans, since the last attempt failed \(HTTP 503 from 127\.0\.0\.1:\d+ POST \/api\/public\/otel\/v1\/traces: .*\); what is not delivered by then is written to the spill directory\.$/,
      ),
    );
  });

  it("against a silent server, writes what it holds once one request's timeout has passed, saying so", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await faultServer(SILENT);
    const dir = spillDir();
    const { processor, svc } = svcProvider(server, {
      flushInterval: 3600,
      flushTimeout: 10,
      timeout: 2,
      spillDir: dir,
    });
    for (let i = 0; i < 5; i++) svc.startSpan(`s${i}`).end();

    const shut = await timed(() => processor.shutdown());

    // One request's timeout (2 s), not the 10 s flushTimeout, and not less.
    expect(shut.ms).toBeGreaterThanOrEqual(2_000 - 50);
    expect(shut.ms).toBeLessThan(2_000 + MARGIN_MS);
    expect(processor.health()).toMatchObject({
      sent: 0,
      spilled: 5,
      onDisk: 5,
      dropped: expect.objectContaining({ shutdown: 0 }),
    });
    expect(itemsOnDisk(dir, "spans")).toBe(5);
    const messages = logs.map((l) => l.message);
    expect(messages).toContainEqual(
      `[Svc SDK] SvcSpanProcessor: spans written to the spill directory (still undelivered at shutdown): 5 spans in ${dir} (the server answered no request within one request's timeout (2 s), so shutdown() stopped waiting before its deadline); they are sent from there, oldest first, once the server answers`,
    );
    expect(messages.filter((m) => m.includes("not delivered before shutdown"))).toEqual([]);
  });
});
