import { renameSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { svcProvider } from "../support/otel.ts";
import { batchFiles, itemsOnDisk, repeated, spillDir, spilledTexts, startSpillServer } from "../support/spill.ts";

const HELD = { flushInterval: 3600, flushTimeout: 1, timeout: 1 };
const WAIT = { timeout: 15_000, interval: 20 };

describe("a span queue past its bound, with a spill directory", () => {
  it("writes the oldest batch to disk instead of dropping, and sends it once the server answers", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const { processor, svc } = svcProvider(server, {
      ...HELD,
      flushAt: 10,
      flushInterval: 1,
      maxQueueSize: 20,
      spillDir: dir,
    });
    const names = Array.from({ length: 60 }, (_, i) => `span-${i}`);
    // The outage is known (one batch at a time probes the server), then ten a turn, each turn once the last is held
    // in memory or on disk: spans that come while the disk keeps up.
    svc.startSpan("probe").end();
    await processor.forceFlush();
    for (let at = 0; at < names.length; at += 10) {
      for (const name of names.slice(at, at + 10)) svc.startSpan(name).end();
      await vi.waitFor(() => {
        const { spilled, queued, inFlight } = processor.health();
        expect(spilled + queued + inFlight).toBe(at + 11);
      }, WAIT);
    }

    expect(processor.health().spilled).toBeGreaterThanOrEqual(40);
    const health = processor.health();
    expect(health.dropped.queueFull).toBe(0);
    expect(itemsOnDisk(dir, "spans")).toBe(health.spilled);
    expect(health.onDisk).toBe(health.spilled);
    expect(logs.map((l) => l.message).join("\n")).toContain(
      "SvcSpanProcessor: spans written to the spill directory (the queue is full)",
    );

    server.mode = "up";
    await processor.forceFlush();
    await vi.waitFor(() => expect(processor.health()).toMatchObject({ onDisk: 0, queued: 0, inFlight: 0 }), WAIT);

    expect([...server.acceptedSpans].sort()).toEqual([...names, "probe"].sort());
    expect(repeated(server.acceptedSpans)).toEqual({});
    expect(processor.health().replayed).toBe(health.spilled);
    expect(batchFiles(dir)).toEqual([]);
  });
});

describe("what reaches the disk", () => {
  it("is masked: a value the mask removes is in no spilled file, compressed or not", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    for (const compression of ["gzip", "none"] as const) {
      const dir = spillDir();
      const mask = ({ data }: { data: unknown }) => String(data).replace(/card-\d+/g, "<card>");
      const { processor, svc } = svcProvider(server, { ...HELD, compression, mask, spillDir: dir });
      for (let i = 0; i < 5; i++)
        svc
          .startSpan(`masked-${i}`, {
            attributes: { "svc.observation.input": `pay with card-4111111111111111 (${i})` },
          })
          .end();

      await processor.shutdown();

      const texts = spilledTexts(dir);
      expect(texts.length).toBeGreaterThan(0);
      const all = texts.join("\n");
      expect(all).toContain("<card>");
      expect(all).toContain("masked-4");
      expect(all).not.toContain("4111111111111111");
      expect(all).not.toContain("sk-test");
    }
  });
});

describe("the bounds of the directory", () => {
  it("drops and counts a batch that would pass spillMaxBytes", async () => {
    const logs = captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const { processor, svc } = svcProvider(server, { ...HELD, spillDir: dir, spillMaxBytes: 64 });
    for (let i = 0; i < 7; i++) svc.startSpan(`big-${i}`).end();

    await processor.shutdown();

    expect(processor.health().dropped.spillFull).toBe(7);
    expect(processor.health().dropped.shutdown).toBe(0);
    expect(processor.health().spilled).toBe(0);
    expect(batchFiles(dir)).toEqual([]);
    expect(logs.map((l) => l.message).join("\n")).toContain(
      `SvcSpanProcessor: spans dropped, the spill directory is full: 7 spans: the spill directory ${dir} holds 0 MiB, its bound (spillMaxBytes)`,
    );
  });

  it("drops and counts batches older than spillMaxAge instead of sending them", async () => {
    const logs = captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const first = svcProvider(server, { ...HELD, spillDir: dir });
    for (let i = 0; i < 4; i++) first.svc.startSpan(`old-${i}`).end();
    await first.processor.shutdown();
    expect(itemsOnDisk(dir, "spans")).toBe(4);
    // Written two days ago, as its name says: past the default bound of one day.
    for (const name of batchFiles(dir)) {
      const parts = name.split(".");
      parts[2] = String(Date.now() - 2 * 86_400_000).padStart(13, "0");
      renameSync(join(dir, name), join(dir, parts.join(".")));
    }

    server.mode = "up";
    const next = svcProvider(server, { ...HELD, spillDir: dir });

    await vi.waitFor(() => expect(next.processor.health().dropped.spillExpired).toBe(4), WAIT);
    expect(batchFiles(dir)).toEqual([]);
    expect(server.acceptedSpans).toEqual([]);
    expect(logs.map((l) => l.message).join("\n")).toContain(
      "SvcSpanProcessor: spans dropped, older than the spill directory's age bound: 4 spans",
    );
  });

  it("drops and counts a batch the server refuses for good (400) when it is sent again", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const first = svcProvider(server, { ...HELD, spillDir: dir });
    for (let i = 0; i < 3; i++) first.svc.startSpan(`refused-${i}`).end();
    await first.processor.shutdown();

    server.server.reply(() => ({ status: 400, json: { message: "bad request" } }));
    const next = svcProvider(server, { ...HELD, spillDir: dir });

    await vi.waitFor(() => expect(next.processor.health().dropped.rejected).toBe(3), WAIT);
    expect(batchFiles(dir)).toEqual([]);
    expect(next.processor.health().replayed).toBe(0);
  });
});

describe("claims", () => {
  it("takes over a batch claimed by a process that died, and leaves one claimed by a live process", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const first = svcProvider(server, { ...HELD, flushAt: 2, spillDir: dir });
    for (let i = 0; i < 4; i++) first.svc.startSpan(`claimed-${i}`).end();
    await first.processor.shutdown();
    const files = batchFiles(dir);
    expect(files).toHaveLength(2);
    const host = hostname().replace(/[^A-Za-z0-9_-]/g, "_");
    // No process has this id (above the kernel's pid_max); the test runner's parent is alive.
    const [dead, live] = [`${files[0]}.claimed.${host}.4194305`, `${files[1]}.claimed.${host}.${process.ppid}`];
    renameSync(join(dir, files[0] as string), join(dir, dead));
    renameSync(join(dir, files[1] as string), join(dir, live));

    server.mode = "up";
    const next = svcProvider(server, { ...HELD, spillDir: dir });

    await vi.waitFor(() => expect(next.processor.health().replayed).toBe(2), WAIT);
    expect(server.acceptedSpans).toHaveLength(2);
    expect(batchFiles(dir)).toEqual([live]);
    expect(next.processor.health().onDisk).toBe(2);
  });
});

describe("scores with a spill directory", () => {
  it("writes what a shutdown leaves undelivered, and a new client sends each score once, with its timestamp", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const keys = { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" };
    const first = new SvcClient({ ...keys, flushInterval: 3600, flushAt: 1000, flushTimeout: 1, spillDir: dir });
    for (let i = 0; i < 30; i++) first.score.create({ name: `score-${i}`, value: i, traceId: "t" });
    await first.shutdown();
    expect(first.score.health(), JSON.stringify(first.score.health())).toMatchObject({ spilled: 30, onDisk: 30 });
    expect(first.score.health().dropped.shutdown).toBe(0);
    const written = spilledTexts(dir).join("\n");
    const stamps = [...written.matchAll(/"timestamp":"([^"]+)"/g)].map((m) => m[1]);
    expect(stamps).toHaveLength(30);

    server.mode = "up";
    const next = new SvcClient({ ...keys, flushInterval: 3600, flushTimeout: 1, spillDir: dir });
    onTestFinished(() => next.shutdown());

    await vi.waitFor(() => expect(next.score.health().replayed).toBe(30), WAIT);
    expect([...server.acceptedScores].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `score-${i}`).sort());
    const sent = server.accepted.flatMap((r) => (r.json as { timestamp: string }[]).map((s) => s.timestamp));
    expect(sent.sort()).toEqual([...stamps].sort());
    expect(next.score.health().onDisk).toBe(0);
  });
});
