import { BatchQueue, type BatchQueueOptions, type SendOutcome } from "@svc/core";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";

/** The longest wait between two sends of a queue through an outage (MIGRATION-v6.md: backoff from 1 s to 10 s). */
const MAX_QUEUE_RETRY_DELAY_MS = 10_000;

interface Attempt {
  batch: number[];
  signal: AbortSignal;
  at: number;
  settled: boolean;
  resolve(outcome: SendOutcome<number>): void;
}

/** A queue whose sends wait for the test to answer them, on fake time. */
function queue(options: Partial<BatchQueueOptions<number>> = {}) {
  vi.useFakeTimers({ now: 0 });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  const attempts: Attempt[] = [];
  const q = new BatchQueue<number>({
    owner: "Test",
    items: "items",
    flushAt: 2,
    flushIntervalMs: 60_000,
    maxBatchItems: 2,
    maxBatchBytes: 1_000_000,
    maxQueueItems: 1_000,
    maxQueueBytes: 1_000_000,
    maxConcurrent: 4,
    send: (batch, signal) =>
      new Promise((resolve) => {
        const attempt: Attempt = {
          batch,
          signal,
          at: Date.now(),
          settled: false,
          resolve: (outcome: SendOutcome<number>) => {
            attempt.settled = true;
            resolve(outcome);
          },
        };
        attempts.push(attempt);
      }),
    ...options,
  });
  const unavailable = (attempt: Attempt, retryAfterMs?: number) =>
    attempt.resolve({
      delivered: 0,
      retry: { items: attempt.batch, fault: { kind: "status", status: 503, description: "HTTP 503" }, retryAfterMs },
    });
  const accepted = (attempt: Attempt) => attempt.resolve({ delivered: attempt.batch.length });
  const open = () => attempts.filter((a) => !a.settled);
  return { q, attempts, open, unavailable, accepted };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("BatchQueue through an outage", () => {
  it("probes with one batch at a time while a fault lasts, and sends at full concurrency once it is over", async () => {
    captureLogs(LogLevel.ERROR);
    const { q, open, unavailable, accepted } = queue();
    for (let i = 0; i < 16; i++) q.offer(10, () => i);
    await settle();
    expect(open()).toHaveLength(4);

    for (const attempt of open()) unavailable(attempt);
    await settle();
    await vi.advanceTimersByTimeAsync(MAX_QUEUE_RETRY_DELAY_MS);
    expect(open()).toHaveLength(1); // the probe

    accepted(open()[0]!);
    await settle();
    expect(open()).toHaveLength(4);
  });

  it("grows the wait once per round of failed batches, up to the cap, unless Retry-After asks for more", async () => {
    captureLogs(LogLevel.ERROR);
    const { q, open, unavailable } = queue();
    for (let i = 0; i < 8; i++) q.offer(10, () => i);
    await settle();
    for (const attempt of open()) unavailable(attempt); // four batches fail together: one step of backoff
    await settle();
    let failedAt = Date.now();
    const waits: number[] = [];
    for (let round = 0; round < 8; round++) {
      const attempt = await nextAttempt(open);
      waits.push(attempt.at - failedAt);
      unavailable(attempt, round === 7 ? 45_000 : undefined);
      await settle();
      failedAt = Date.now();
    }
    waits.push((await nextAttempt(open)).at - failedAt);

    expect(waits[0]).toBeLessThanOrEqual(1_300); // the first step: about 1 s, with jitter
    expect(waits[1]).toBeGreaterThan(waits[0] as number); // then it grows
    for (const wait of waits.slice(0, -1)) expect(wait).toBeLessThanOrEqual(MAX_QUEUE_RETRY_DELAY_MS + 100);
    expect(waits.slice(4, -1).every((wait) => wait >= 7_500)).toBe(true); // at the cap, with jitter
    expect(waits.at(-1)).toBeGreaterThanOrEqual(45_000);
  });

  it("holds items through the failures, drops only what exceeds the bounds, and counts it", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const { q, open, unavailable, accepted } = queue({ maxQueueItems: 10 });
    for (let i = 0; i < 14; i++) q.offer(10, () => i);
    await settle();
    for (const attempt of open()) unavailable(attempt);
    await settle();

    for (let round = 0; round < 5 && q.health().sent < 10; round++) {
      await vi.advanceTimersByTimeAsync(MAX_QUEUE_RETRY_DELAY_MS);
      for (const attempt of open()) accepted(attempt);
      await settle();
    }

    expect(q.health()).toMatchObject({ sent: 10, queued: 0, dropped: expect.objectContaining({ queueFull: 4 }) });
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringMatching(/items dropped, the queue is full: 1 item: 10 items/),
      expect.stringMatching(/Test: cannot deliver items: HTTP 503\. 2 items kept and retried .*, 10 items waiting\)/),
      "[Svc SDK] Test: items dropped, the queue is full: 3 more items since the last message (4 in total)",
      "[Svc SDK] Test: still cannot deliver items after 10 s (HTTP 503): 4 failed attempts, 10 items waiting, 0 dropped so far.",
      expect.stringMatching(/^\[Svc SDK\] Test: delivery recovered after \d+ s: 10 items delivered late, 0 lost\.$/),
    ]);
  });
});

/** Advances fake time in steps of 100 ms until the queue makes an attempt (within 70 s). */
async function nextAttempt(open: () => Attempt[]): Promise<Attempt> {
  for (let i = 0; i < 700 && open().length === 0; i++) await vi.advanceTimersByTimeAsync(100);
  const attempt = open()[0];
  if (!attempt) throw new Error("no attempt was made");
  return attempt;
}

describe("BatchQueue bounds", () => {
  it("makes an offered item only once it is queued: nothing is made for an item it drops", () => {
    captureLogs(LogLevel.ERROR);
    const { q, open } = queue({ maxQueueItems: 3, maxQueueBytes: 25, flushAt: 100 });
    const made: number[] = [];
    const offer = (item: number, bytes: number) =>
      q.offer(bytes, () => {
        made.push(item);
        return item;
      });

    expect(offer(1, 10)).toBe(1);
    expect(offer(2, 10)).toBe(2);
    expect(offer(3, 10)).toBeUndefined(); // 30 bytes: over maxQueueBytes
    expect(offer(4, 5)).toBe(4); // 25 bytes: fits
    expect(offer(5, 1)).toBeUndefined(); // a fourth item: over maxQueueItems

    expect(made).toEqual([1, 2, 4]);
    expect(q.health()).toMatchObject({ queued: 3, dropped: expect.objectContaining({ queueFull: 2 }) });
    expect(open()).toHaveLength(0);
  });
});

describe("BatchQueue counts", () => {
  it("counts a delivered batch out of flight once, so the next flush still sends what was queued after it", async () => {
    const { q, attempts, accepted } = queue({ flushAt: 100 });

    q.offer(10, () => 1);
    const first = q.flush(Date.now() + 10_000);
    await settle();
    accepted(attempts[0] as Attempt);
    await first;
    q.offer(10, () => 2);
    const second = q.flush(Date.now() + 10_000);
    await settle();
    accepted(attempts[1] as Attempt);
    await second;

    expect(attempts.map((a) => a.batch)).toEqual([[1], [2]]);
    expect(q.health()).toMatchObject({ queued: 0, inFlight: 0, sent: 2 });
  });

  it("counts a retried batch out of flight once, while it waits to be sent again", async () => {
    const { q, attempts, unavailable } = queue({ flushAt: 1 });

    q.offer(10, () => 1);
    await settle();
    unavailable(attempts[0] as Attempt);
    await settle();

    expect(q.health()).toMatchObject({ queued: 1, inFlight: 0, retries: 1 });
  });
});

describe("BatchQueue schedule", () => {
  it("sends a partial batch one flush interval after its first item, however many items follow", async () => {
    const { q, attempts } = queue({ flushAt: 100, maxBatchItems: 100, flushIntervalMs: 1_000 });

    q.offer(10, () => 1);
    await vi.advanceTimersByTimeAsync(600);
    q.offer(10, () => 2);
    q.offer(10, () => 3);
    await vi.advanceTimersByTimeAsync(399);
    expect(attempts).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);

    expect(attempts.map((a) => [a.at, a.batch])).toEqual([[1_000, [1, 2, 3]]]);
  });

  it("sends queued items at the end of a wait after a failure, not one flush interval after a later push", async () => {
    const { q, attempts, unavailable } = queue({ flushAt: 1, flushIntervalMs: 100 });

    q.offer(10, () => 1);
    await settle();
    unavailable(attempts[0] as Attempt, 5_000);
    await settle();
    q.offer(10, () => 2);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(attempts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);

    expect(attempts.slice(1).map((a) => a.at)).toEqual([5_000]);
  });
});

describe("BatchQueue on a runtime that binds I/O to requests", () => {
  it("gives each send its own signal, made when the send starts", async () => {
    const signals: AbortSignal[] = [];
    const { q } = queue({
      send: async (batch, signal) => {
        signals.push(signal);
        return { delivered: batch.length };
      },
    });

    q.offer(10, () => 1);
    await q.flush(Date.now() + 1_000);
    q.offer(10, () => 2);
    await q.flush(Date.now() + 1_000);

    expect(signals).toHaveLength(2);
    expect(signals[0]).not.toBe(signals[1]);
    expect(signals.some((s) => s.aborted)).toBe(false);
  });

  it("sends again, on the next flush, the items of a send the runtime never settled", async () => {
    // Lost once unsettled for its request's timeout and LOST_SEND_GRACE_MS (5 s).
    const { q, attempts, accepted } = queue({ attemptTimeoutMs: 0 });
    const logs = captureLogs(LogLevel.WARN);
    q.offer(10, () => 1);
    q.offer(10, () => 2);
    await settle();
    expect(attempts).toHaveLength(1); // a request that ended without waiting for it: this send never settles

    const early = q.flush(Date.now() + 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await early).pending).toBe(2);
    await vi.advanceTimersByTimeAsync(4_000);
    const flushing = q.flush(Date.now() + 1_000);
    await settle();
    expect(attempts.map((a) => a.batch)).toEqual([
      [1, 2],
      [1, 2],
    ]);
    accepted(attempts[1] as Attempt);

    expect(await flushing).toEqual({ pending: 0 });
    expect(q.health()).toMatchObject({ sent: 2, queued: 0, inFlight: 0 });
    expect(logs.map((l) => l.message).join("\n")).toContain(
      "Test: 2 items of sends still unsettled 5 s past their deadline",
    );
    accepted(attempts[0] as Attempt); // a late answer of the lost send changes nothing
    await settle();
    expect(q.health()).toMatchObject({ sent: 2, queued: 0, inFlight: 0 });
  });

  it("arms its timer again on a flush when the one armed before was cancelled with its request", async () => {
    const { q, attempts } = queue({ flushIntervalMs: 1_000 });
    q.offer(10, () => 1);
    vi.clearAllTimers(); // what a runtime does to the timers of a request that ended
    const flushing = q.flush(Date.now() + 60_000);
    await settle();
    expect(attempts.map((a) => a.batch)).toEqual([[1]]);
    (attempts[0] as Attempt).resolve({ delivered: 1 });
    expect(await flushing).toEqual({ pending: 0 });

    q.offer(10, () => 2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(attempts.map((a) => a.batch)).toEqual([[1], [2]]);
  });
});

it("takes back, while a flush waits, a send that outlives its timeout and grace, and ends the flush within its deadline", async () => {
  const { q, attempts, accepted } = queue({ attemptTimeoutMs: 0 });
  q.offer(10, () => 1);
  q.offer(10, () => 2);
  await settle();
  expect(attempts).toHaveLength(1); // started during an earlier request, never settled

  const flushing = q.flush(Date.now() + 20_000);
  await vi.advanceTimersByTimeAsync(5_000);
  expect(attempts.map((a) => a.batch)).toEqual([
    [1, 2],
    [1, 2],
  ]);
  accepted(attempts[1] as Attempt);

  expect(await flushing).toEqual({ pending: 0 });
  expect(Date.now()).toBeLessThan(20_000);
});

describe("BatchQueue lifecycle", () => {
  it("starts no timer, creates no abort controller and draws no random number until an item is queued", () => {
    vi.useFakeTimers({ now: 0 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const Original = globalThis.AbortController;
    let controllers = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        controllers++;
      }
    };
    onTestFinished(() => {
      globalThis.AbortController = Original;
    });
    const random = vi.spyOn(Math, "random");
    onTestFinished(() => random.mockRestore());

    const q = new BatchQueue<number>({
      owner: "Test",
      items: "items",
      flushAt: 2,
      flushIntervalMs: 60_000,
      maxBatchItems: 2,
      maxBatchBytes: 1_000_000,
      maxQueueItems: 1_000,
      maxQueueBytes: 1_000_000,
      maxConcurrent: 4,
      send: async (batch) => ({ delivered: batch.length }),
    });
    q.health();

    expect({ timers: vi.getTimerCount(), controllers, random: random.mock.calls.length }).toEqual({
      timers: 0,
      controllers: 0,
      random: 0,
    });
  });

  it("gives each send a signal of its own, and shutdown aborts only the sends still under way after a moment's grace", async () => {
    captureLogs(LogLevel.ERROR);
    const { q, attempts, accepted, unavailable } = queue();
    for (let i = 0; i < 4; i++) q.offer(10, () => i);
    await settle();
    const [first, second] = attempts as [Attempt, Attempt];
    accepted(first);
    await settle();

    const stopped = q.shutdown(Date.now());
    await vi.advanceTimersByTimeAsync(0);
    const inGrace = second.signal.aborted;
    await vi.advanceTimersByTimeAsync(250);
    const aborted = [first.signal.aborted, second.signal.aborted];
    unavailable(second);
    await stopped;

    expect(first.signal).not.toBe(second.signal);
    expect(inGrace).toBe(false);
    expect(aborted).toEqual([false, true]);
    expect(q.health()).toMatchObject({ sent: 2, dropped: expect.objectContaining({ shutdown: 2 }) });
  });

  it("counts sent, never dropped, a batch accepted in the grace after the shutdown deadline, and sends nothing again", async () => {
    const logs = captureLogs(LogLevel.ERROR);
    const { q, attempts, accepted, unavailable } = queue();
    for (let i = 0; i < 6; i++) q.offer(10, () => i);
    await settle();
    const [first, second, third] = attempts as [Attempt, Attempt, Attempt];

    const stopped = q.shutdown(Date.now() + 1_000);
    await vi.advanceTimersByTimeAsync(1_100);
    accepted(first);
    unavailable(second);
    await vi.advanceTimersByTimeAsync(150);
    await stopped;
    accepted(third); // too late: aborted and counted with the others

    expect(attempts).toHaveLength(3);
    expect(q.health()).toMatchObject({
      sent: 2,
      queued: 0,
      inFlight: 0,
      dropped: expect.objectContaining({ shutdown: 4 }),
    });
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringMatching(
        /^\[Svc SDK\] Test: items dropped, not delivered before shutdown: 4 items: the shutdown deadline passed/,
      ),
    ]);
  });
});
