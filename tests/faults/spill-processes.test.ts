import { readdirSync, watch } from "node:fs";
import { describe, expect, it } from "vitest";
import { runChild, startChild } from "../support/child-process.ts";
import { batchFiles, itemsOnDisk, repeated, spillDir, startSpillServer } from "../support/spill.ts";

/**
 * A process that traces `SPANS` spans and queues `SCORES` scores (named after `PREFIX`), then shuts down; the spill
 * directory comes from SVC_SPILL_DIR. Prints the health of both queues.
 */
const SPILLING = `
  import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
  import { SvcClient } from "@svc/client";
  import { SvcSpanProcessor } from "@svc/otel";
  const keys = { baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-spill", secretKey: "sk-spill-secret" };
  const big = "x".repeat(Number(process.env.VALUE_CHARS ?? "10"));
  const processor = new SvcSpanProcessor({
    ...keys, flushAt: Number(process.env.FLUSH_AT ?? "20"), flushInterval: 3600, flushTimeout: 1, timeout: 1,
    compression: process.env.COMPRESSION ?? "gzip",
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const svc = new SvcClient({ ...keys, flushAt: 1000, flushInterval: 3600, flushTimeout: 1, timeout: 1 });
  const tracer = provider.getTracer("svc-sdk");
  const prefix = process.env.PREFIX;
  for (let i = 0; i < Number(process.env.SPANS); i++)
    tracer.startSpan(prefix + "-span-" + i, { attributes: { "svc.observation.input": big } }).end();
  for (let i = 0; i < Number(process.env.SCORES); i++) svc.score.create({ name: prefix + "-score-" + i, value: i, traceId: "t" });
  console.log("shutting down");
  await provider.shutdown();
  await svc.shutdown();
  console.log(JSON.stringify({ spans: processor.health(), scores: svc.score.health() }));
`;

/** A process started on the spill directory that waits until no batch is left in it, then shuts down. */
const DRAINING = `
  import { readdirSync } from "node:fs";
  import { SvcClient } from "@svc/client";
  import { SvcSpanProcessor } from "@svc/otel";
  const keys = { baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-spill", secretKey: "sk-spill-secret" };
  // 5 s per request: on a loaded machine a 1 s timeout can end a request the server has already accepted.
  const processor = new SvcSpanProcessor({ ...keys, flushTimeout: 5, timeout: 5 });
  const svc = new SvcClient({ ...keys, flushTimeout: 5, timeout: 5 });
  const left = () => readdirSync(process.env.SVC_SPILL_DIR).filter((name) => /\\.batch($|\\.claimed)/.test(name));
  // Bounded: 40 s at most, then whatever is left is reported by the test.
  for (let i = 0; i < 800 && left().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await processor.shutdown();
  await svc.shutdown();
  console.log(JSON.stringify({ spans: processor.health(), scores: svc.score.health() }));
`;

interface Healths {
  spans: { spilled: number; replayed: number; onDisk: number; dropped: { shutdown: number } };
  scores: { spilled: number; replayed: number; onDisk: number; dropped: { shutdown: number } };
}

function healthOf(stdout: string): Healths {
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Healths;
}

const names = (prefix: string, kind: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${kind}-${i}`).sort();

describe("a spill directory across processes", () => {
  it("a shutdown with an unanswering server spills, and the next process delivers every span and score once", async () => {
    const server = await startSpillServer("silent");
    const dir = spillDir();
    const env = { SVC_BASE_URL: server.url, SVC_SPILL_DIR: dir };

    const first = await runChild(SPILLING, { env: { ...env, PREFIX: "a", SPANS: "100", SCORES: "30" } });

    expect(first.code).toBe(0);
    const spilled = healthOf(first.stdout);
    expect(spilled.spans).toMatchObject({ spilled: 100, onDisk: 100 });
    expect(spilled.scores).toMatchObject({ spilled: 30, onDisk: 30 });
    expect(spilled.spans.dropped.shutdown + spilled.scores.dropped.shutdown).toBe(0);
    expect(first.stderr).toContain(
      `[Svc SDK] SvcSpanProcessor: 100 spans left on disk in ${dir} (0 MiB, the oldest from `,
    );
    expect(first.stderr).toContain("the next start with this spill directory sends them.");
    expect(first.stderr).toContain(`[Svc SDK] ScoreManager: 30 scores left on disk in ${dir}`);
    expect(itemsOnDisk(dir, "spans")).toBe(100);
    expect(itemsOnDisk(dir, "scores")).toBe(30);
    expect(server.acceptedSpans).toEqual([]);

    server.mode = "up";
    const next = await runChild(DRAINING, { env });

    expect(next.code).toBe(0);
    expect([...server.acceptedSpans].sort()).toEqual(names("a", "span", 100));
    expect([...server.acceptedScores].sort()).toEqual(names("a", "score", 30));
    expect(healthOf(next.stdout).spans).toMatchObject({ replayed: 100, onDisk: 0 });
    expect(healthOf(next.stdout).scores).toMatchObject({ replayed: 30, onDisk: 0 });
    expect(batchFiles(dir)).toEqual([]);
    expect(next.stderr).not.toContain("left on disk");
  });

  it("kill -9 while batches are written leaves no half batch that is sent", async () => {
    const server = await startSpillServer("down");
    const dir = spillDir();
    const env = { SVC_BASE_URL: server.url, SVC_SPILL_DIR: dir };
    const child = await startChild(SPILLING, {
      env: {
        ...env,
        PREFIX: "k",
        SPANS: "400",
        SCORES: "0",
        VALUE_CHARS: "40000",
        FLUSH_AT: "25",
        COMPRESSION: "none",
      },
    });
    // Killed as soon as the first temporary file appears: batches are being written.
    const watcher = watch(dir, (_event, name) => {
      if (String(name).startsWith(".tmp.")) child.process.kill("SIGKILL");
    });
    const ended = await child.done;
    watcher.close();

    expect(ended.signal).toBe("SIGKILL");
    const temps = readdirSync(dir).filter((name) => name.startsWith(".tmp."));
    expect(temps.length).toBeGreaterThan(0);
    const whole = itemsOnDisk(dir, "spans");

    server.mode = "up";
    const next = await runChild(DRAINING, { env });

    expect(next.code).toBe(0);
    // Every request was a whole OTLP body, and it carried only the batches that had been written completely.
    const otlp = server.accepted.filter((r) => r.path === "/api/public/otel/v1/traces");
    expect(otlp.every((r) => r.json !== undefined)).toBe(true);
    expect(server.acceptedSpans).toHaveLength(whole);
    expect(repeated(server.acceptedSpans)).toEqual({});
    expect(readdirSync(dir).filter((name) => name.startsWith(".tmp."))).toEqual(temps);
  });

  it("two processes on one directory deliver each batch once", async () => {
    const server = await startSpillServer("down", 15);
    const dir = spillDir();
    const env = { SVC_BASE_URL: server.url, SVC_SPILL_DIR: dir };
    const first = await runChild(SPILLING, { env: { ...env, PREFIX: "t", SPANS: "600", SCORES: "250" } });
    expect(first.code).toBe(0);
    expect(itemsOnDisk(dir, "spans")).toBe(600);
    expect(itemsOnDisk(dir, "scores")).toBe(250);

    server.mode = "up";
    const [one, two] = await Promise.all([runChild(DRAINING, { env }), runChild(DRAINING, { env })]);

    expect([one?.code, two?.code]).toEqual([0, 0]);
    expect(repeated(server.acceptedSpans)).toEqual({});
    expect(repeated(server.acceptedScores)).toEqual({});
    expect([...server.acceptedSpans].sort()).toEqual(names("t", "span", 600));
    expect([...server.acceptedScores].sort()).toEqual(names("t", "score", 250));
    const [a, b] = [healthOf(one?.stdout ?? ""), healthOf(two?.stdout ?? "")];
    expect(a.spans.replayed + b.spans.replayed).toBe(600);
    // Both took part: each claimed batches the other then left alone.
    expect(a.spans.replayed).toBeGreaterThan(0);
    expect(b.spans.replayed).toBeGreaterThan(0);
    expect(a.scores.replayed + b.scores.replayed).toBe(250);
    expect(batchFiles(dir)).toEqual([]);
  });
});

describe("the exit line with a spill directory", () => {
  it("says how much is left on disk and that the next start sends it", async () => {
    const server = await startSpillServer("down");
    const dir = spillDir();
    const result = await runChild(
      `
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { SvcSpanProcessor } from "@svc/otel";
      const processor = new SvcSpanProcessor({
        baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-exit", secretKey: "sk-exit-secret",
        flushAt: 5, maxQueueSize: 10, flushInterval: 3600, flushTimeout: 1, timeout: 1, flushOnExit: false,
      });
      const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("svc-sdk");
      tracer.startSpan("probe").end();
      await processor.forceFlush();
      // Bounded: five spans a turn, until ten are on disk or 10 s have passed.
      for (let i = 0; i < 200 && processor.health().onDisk < 10; i++) {
        for (let j = 0; j < 5; j++) tracer.startSpan("e").end();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      console.log(JSON.stringify(processor.health()));
    `,
      { env: { SVC_BASE_URL: server.url, SVC_SPILL_DIR: dir } },
    );

    expect(result.code).toBe(0);
    const onDisk = itemsOnDisk(dir, "spans");
    expect(onDisk).toBeGreaterThanOrEqual(10);
    expect(result.stderr).toContain(
      `not delivered; await shutdown() of the span processor (or of the tracer provider) and of SvcClient before the process ends. ${onDisk} spans are left in the spill directory; the next start with it sends them.`,
    );
  });
});
