import { settleWithin } from "../lifecycle/settle-within.js";
import { describeError } from "../log/describe.js";
import { getGlobalLogger } from "../log/logger.js";
import { Backoff } from "./backoff.js";
import type { BatchQueueOptions, FlushResult } from "./batch-queue-options.js";
import { DeliveryLog, type DropReason } from "./delivery-log.js";
import { bindDeliveryMetrics, observeDelivery } from "./delivery-metrics.js";
import { type DeliveryHealth, DeliveryStats } from "./delivery-stats.js";
import { FlushWaiters } from "./flush-waiters.js";
import { type Entry, ItemBuffer } from "./item-buffer.js";
import type { SendOutcome } from "./outcome.js";
import { SpillGate } from "./spill-gate.js";
import { answeredSince, isGivenUp, noteAnswer, noteGivenUp, UNANSWERED_RECHECK_MS } from "./unanswered-servers.js";
import { WakeTimer } from "./wake-timer.js";

/** A send under way: the controller of its own signal (made when it starts, in the request that starts it). */
interface Send<T> {
  controller: AbortController;
  batch: Entry<T>[];
  startedAt: number;
  /** Given up on as lost: its items were queued again and its late outcome changes nothing. */
  lost: boolean;
  outcome?: SendOutcome<T>; // when it ended after the queue closed: a shutdown spills what it did not deliver
}

/**
 * How long shutdown waits for the sends it has aborted to end: those of the SDK end at once, a send that ignores its
 * signal (user code that never returns) is left behind.
 */
const ABORTED_SENDS_GRACE_MS = 250;

/**
 * The one bounded queue of the SDK, for spans and scores alike: items wait in order, bounded in count and in
 * bytes; batches (bounded in count and bytes) go out when `flushAt` items wait, when the oldest has waited
 * `flushIntervalMs`, or when a flush asks; at most `maxConcurrent` at a time. A batch that fails with a
 * retryable fault goes back to the front and the queue waits (backoff with jitter, or the server's `Retry-After`) before the next attempt: items are
 * held through an outage for as long as they fit in the bounds, and only what does not fit is dropped and counted.
 * While a fault lasts, one batch at a time probes the server. Timers are unref'd; constructing one starts nothing.
 */
export class BatchQueue<T> {
  readonly #options: BatchQueueOptions<T>;
  readonly #log: DeliveryLog;
  readonly #buffer = new ItemBuffer<T>();
  readonly #stats = new DeliveryStats();
  readonly #backoff = new Backoff();
  readonly #waiters = new FlushWaiters();
  readonly #timer = new WakeTimer(() => {
    this.#timerDue = true;
    this.#pump();
  });
  /** Sends under way, each with the controller of its own signal. */
  readonly #sends = new Map<Promise<void>, Send<T>>();
  #inFlightItems = 0;
  #inFlightBytes = 0;
  /** A flush rechecks a server that did not answer: one attempt may start at once, beside any under way. */
  #recheckProbe = false;
  /** Whether the server answered the last attempt that ended (undefined before any). */
  #lastAnswered: boolean | undefined;
  #pumpScheduled = false;
  #timerDue = false;
  #closed = false;
  /** Spill hook: where batches go instead of being dropped; what comes back from disk is recorded as a live outcome. */
  readonly #spill: SpillGate<T> | undefined;

  constructor(options: BatchQueueOptions<T>) {
    this.#options = options;
    this.#spill = SpillGate.of(options, this.#buffer, this.#waiters, this.#stats, {
      drop: (reason, count, detail) => this.drop(reason, count, detail),
      record: (outcome) => (outcome.retry ? this.#stats.failed(outcome.retry.fault) : this.#record([], outcome)),
      failing: () => this.#backoff.failing,
    });
    this.#log = new DeliveryLog(options.owner, options.items, () => this.size, options.spill !== undefined);
    observeDelivery(this, this.#stats.counts, options.meterProvider);
  }

  /** What the items are called (`spans`, `scores`). */
  get items(): string {
    return this.#options.items;
  }

  /** Items waiting and being sent. */
  get size(): number {
    return this.#buffer.length + this.#inFlightItems;
  }

  /** Items queued since the queue was created (grows only). */
  get accepted(): number {
    return this.#buffer.lastSeq;
  }

  /** Queues an item; returns false (and counts the drop) when the queue is closed or full. */
  push(item: T): boolean {
    if (this.#closed) {
      this.drop("shutdown", 1, `an item arrived after shutdown()`);
      return false;
    }
    const { maxQueueItems, maxQueueBytes, items } = this.#options;
    let bytes: number;
    try {
      bytes = this.#options.sizeOf(item);
    } catch {
      bytes = 0;
    }
    const fits = () => this.size < maxQueueItems && this.#buffer.bytes + this.#inFlightBytes + bytes <= maxQueueBytes;
    // Spill hook: at the memory bound, the oldest waiting batch goes to disk instead of this item being dropped.
    if (!fits() && !this.#spill?.makeRoom(fits)) {
      const heldBytes = this.#buffer.bytes + this.#inFlightBytes;
      const held = `${this.size} ${items} (${Math.round(heldBytes / 1024)} KiB) held`;
      const limits = `limits ${maxQueueItems} ${items}, ${Math.round(maxQueueBytes / 1024)} KiB`;
      this.drop("queueFull", 1, `${held}, ${limits}; raise the queue limits or check that the server is reachable`);
      return false;
    }
    this.#buffer.add(item, bytes);
    if (this.#options.immediate || this.#buffer.length >= this.#options.flushAt) this.#schedulePump();
    else this.#arm(this.#options.flushIntervalMs);
    return true;
  }

  /** Counts items given up on outside the queue (an item too large to queue, sampled out...), and logs them. */
  drop(reason: DropReason, count: number, detail: string): void {
    this.#stats.dropped(reason, count);
    this.#log.dropped(reason, count, detail);
  }

  /**
   * Sends every item queued before this call, partial batches included, and resolves when each of them was
   * delivered or dropped, or when `deadline` (epoch ms) passes, whatever the server does. When an earlier flush (of
   * any queue) gave up on the server because it did not answer, the flush sends at once and waits
   * `UNANSWERED_RECHECK_MS` at most for an answer; only an answer gives it the time until `deadline`.
   */
  async flush(deadline: number): Promise<FlushResult> {
    const remaining = this.size;
    if (remaining === 0) return { pending: 0 };
    const started = Date.now();
    const server = this.#options.server;
    const early = this.#recheckUntil(deadline);
    if (early !== undefined) {
      this.#recheckProbe = true;
      this.#backoff.probeNow();
    }
    const waiting = this.#waiters.wait(
      this.#buffer.lastSeq,
      remaining,
      deadline,
      early === undefined ? undefined : { at: early, extend: () => answeredSince(server as string, started) },
    );
    const stopWatching = this.#watchLost(deadline);
    try {
      this.#reclaimLost();
      // A timer armed during an earlier request may have been cancelled with it: the pump arms one of this flush.
      this.#timer.cancel();
      this.#pump();
      const pending = await waiting;
      // Given up without an answer since the flush began, while a request waited for one or the last got none.
      const unanswered = this.#sends.size > 0 || this.#lastAnswered === false;
      const silent = pending > 0 && server !== undefined && !answeredSince(server, started);
      if (silent && unanswered) noteGivenUp(server);
      return silent && early !== undefined ? { pending, rechecked: true } : { pending };
    } finally {
      if (early !== undefined) this.#recheckProbe = false;
      stopWatching();
      this.#log.report({ dueOnly: true });
    }
  }

  /** When a flush to a server that a flush gave up on stops waiting unless it answers; undefined otherwise. */
  #recheckUntil(deadline: number): number | undefined {
    const server = this.#options.server;
    if (server === undefined || !isGivenUp(server)) return undefined;
    const at = Date.now() + UNANSWERED_RECHECK_MS;
    return at < deadline ? at : undefined;
  }

  /**
   * Flushes until `deadline`, then stops: sends still running are aborted (and waited for a moment at most) and
   * whatever is left is dropped and counted (one line). Items pushed afterwards are dropped. Leaves no timer behind.
   */
  async shutdown(until: number): Promise<FlushResult> {
    const deadline = this.#spill?.shutdownDeadline(until, this.#backoff.failing) ?? until; // Spill hook: no long wait
    this.#announceWait(deadline);
    const result = await this.flush(deadline);
    this.#closed = true;
    this.#timer.cancel();
    const left = this.size;
    if (left > 0) {
      const cause = this.#stats.lastFailureText();
      for (const send of this.#sends.values()) send.controller.abort();
      const held = this.#buffer.takeAll();
      // Spill hook: what the shutdown leaves undelivered goes to disk, for this directory's next process.
      const settled = (await this.#spill?.atShutdown(held, this.#sends, ABORTED_SENDS_GRACE_MS)) ?? 0;
      this.#waiters.settle(held);
      this.drop("shutdown", left - settled, `the shutdown deadline passed before they could be delivered${cause}`);
      await settleWithin(() => Promise.allSettled([...this.#sends.keys()]), { timeoutMs: ABORTED_SENDS_GRACE_MS });
    }
    await this.#spill?.spill.close();
    this.#log.close();
    return result;
  }

  /** At the start of a shutdown with items held while the server fails: one line with the longest wait, and why. */
  #announceWait(deadline: number): void {
    const held = this.size;
    const early = this.#recheckUntil(deadline);
    if (held === 0 || (!this.#backoff.failing && early === undefined)) return;
    const failure = this.#stats.health({ queued: 0, queuedBytes: 0, inFlight: 0, shutdown: false }).lastError;
    this.#log.shutdownWait({ held, deadline, recheckUntil: early, failure: failure?.description });
  }

  /** Counts for `health()`. */
  health(): DeliveryHealth {
    return this.#stats.health({
      queued: this.#buffer.length,
      queuedBytes: this.#buffer.bytes,
      inFlight: this.#inFlightItems,
      shutdown: this.#closed,
      ...this.#spill?.spill.counts(),
    });
  }

  /** Pumps once the current task yields, so that items queued together in a burst fill whole batches. */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    queueMicrotask(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /**
   * Starts sends while a slot is free, the queue is not waiting out a failure, and a batch is due. While a fault
   * lasts, one batch at a time probes the server; the others follow once it is accepted.
   */
  #pump(): void {
    const { flushAt, immediate, maxBatchItems, maxBatchBytes } = this.#options;
    const waitMs = this.#backoff.remainingMs();
    if (waitMs > 0) {
      this.#arm(waitMs);
      return;
    }
    const buffer = this.#buffer;
    while (
      this.#sends.size < this.#slots() &&
      buffer.length > 0 &&
      (immediate || this.#waiters.size > 0 || buffer.length >= flushAt || this.#timerDue)
    ) {
      this.#start(buffer.take(maxBatchItems, maxBatchBytes));
    }
    this.#timerDue = false;
    if (buffer.length > 0 && this.#sends.size < this.#slots()) this.#arm(this.#options.flushIntervalMs);
  }

  /** Sends allowed at once: one while a fault lasts (and one more for a recheck's probe), else `maxConcurrent`. */
  #slots(): number {
    return (this.#backoff.failing ? 1 : this.#options.maxConcurrent) + (this.#recheckProbe ? 1 : 0);
  }

  #start(batch: Entry<T>[]): void {
    this.#recheckProbe = false;
    // Once per batch: a meter provider registered after the queue was made is found here.
    bindDeliveryMetrics();
    this.#inFlightItems += batch.length;
    for (const entry of batch) this.#inFlightBytes += entry.bytes;
    const send: Send<T> = { controller: new AbortController(), batch, startedAt: Date.now(), lost: false };
    const sending: Promise<void> = this.#sendOne(send).finally(() => {
      this.#sends.delete(sending);
      if (!this.#closed && !send.lost) this.#pump();
    });
    this.#sends.set(sending, send);
  }

  /** While a flush waits (until `deadline`), takes back each send as soon as it outlives `lostAfterMs`. */
  #watchLost(deadline: number): () => void {
    const { lostAfterMs } = this.#options;
    if (lostAfterMs === undefined) return () => {};
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = (): void => {
      let earliest = Number.POSITIVE_INFINITY;
      for (const send of this.#sends.values()) earliest = Math.min(earliest, send.startedAt + lostAfterMs);
      if (earliest >= deadline) return;
      timer = setTimeout(
        () => {
          this.#reclaimLost();
          this.#pump();
          check();
        },
        Math.max(0, earliest - Date.now()),
      );
    };
    check();
    return () => clearTimeout(timer);
  }

  /** Queues again, at the front, the items of sends that outlived `lostAfterMs` without settling. */
  #reclaimLost(): void {
    const { lostAfterMs } = this.#options;
    if (lostAfterMs === undefined || this.#sends.size === 0) return;
    const now = Date.now();
    let reclaimed = 0;
    for (const [sending, send] of this.#sends) {
      if (now - send.startedAt < lostAfterMs) continue;
      send.lost = true;
      send.controller.abort();
      this.#sends.delete(sending);
      this.#release(send.batch);
      this.#buffer.putBack(send.batch);
      reclaimed += send.batch.length;
    }
    if (reclaimed > 0)
      getGlobalLogger().warn(
        `${this.#options.owner}: ${reclaimed} ${this.#options.items} of sends that never finished (the runtime ended the request that started them) are sent again`,
      );
  }

  async #sendOne(send: Send<T>): Promise<void> {
    const { batch } = send;
    let outcome: SendOutcome<T>;
    try {
      outcome = await this.#options.send(
        batch.map((e) => e.item),
        send.controller.signal,
      );
    } catch (error) {
      outcome = {
        delivered: 0,
        retry: { items: batch.map((e) => e.item), fault: { kind: "error", description: describeError(error) } },
      };
    } finally {
      // No longer in flight before they are requeued, so no count holds them twice.
      if (!send.lost) this.#release(batch);
    }
    if (send.lost) return; // taken back as lost and queued again: its late outcome changes nothing
    this.#noteAnswer(outcome);
    // Once shut down, what was still held has been counted (or spilled, by this outcome); a late answer changes nothing.
    if (!this.#closed) this.#record(batch, outcome);
    else send.outcome = outcome;
  }

  /** A batch is no longer in flight. */
  #release(batch: readonly Entry<T>[]): void {
    this.#inFlightItems -= batch.length;
    for (const entry of batch) this.#inFlightBytes -= entry.bytes;
  }

  /** Whether the server answered the attempt (accepted it, or answered with a status), for the flushes to come. */
  #noteAnswer(outcome: SendOutcome<T>): void {
    const faults = [outcome.retry?.fault, ...(outcome.dropped ?? []).map((d) => d.fault)].filter(
      (f) => f !== undefined,
    );
    if (outcome.delivered === 0 && faults.length === 0) return;
    this.#lastAnswered = outcome.delivered > 0 || faults.some((f) => f.status !== undefined);
    if (this.#lastAnswered && this.#options.server !== undefined) noteAnswer(this.#options.server);
  }

  /** Counts and logs what became of a batch; puts what is to be retried back at the front. */
  #record(batch: Entry<T>[], outcome: SendOutcome<T>): void {
    const retry = outcome.retry && outcome.retry.items.length > 0 ? outcome.retry : undefined;
    const retried = new Set<T>(retry?.items);
    const settled = retry ? batch.filter((e) => !retried.has(e.item)) : batch;
    this.#stats.delivered(outcome.delivered);
    for (const drop of outcome.dropped ?? []) {
      if (drop.fault) this.#stats.failed(drop.fault);
      if (!drop.logged) this.drop(drop.reason, drop.count, drop.detail);
      else {
        this.#stats.dropped(drop.reason, drop.count);
        this.#log.lost(drop.count);
      }
    }
    if (outcome.delivered > 0) {
      if (!retry) this.#backoff.succeeded();
      this.#spill?.spill.serverAnswered();
      this.#log.delivered(outcome.delivered);
    }
    if (retry)
      this.#requeue(
        batch.filter((e) => retried.has(e.item)),
        retry,
      );
    this.#waiters.settle(settled);
  }

  /** Puts failed items back at the front and waits before the next attempt. */
  #requeue(entries: Entry<T>[], retry: NonNullable<SendOutcome<T>["retry"]>): void {
    this.#buffer.putBack(entries);
    this.#stats.retried();
    this.#stats.failed(retry.fault);
    const delayMs = this.#backoff.failed(retry.retryAfterMs);
    this.#log.retrying(retry.fault, entries.length, delayMs);
    if (this.#recheckProbe) {
      // A flush waits to see whether the server answers now: the probe it was promised goes out at once.
      this.#backoff.probeNow();
      this.#schedulePump();
    } else this.#arm(delayMs);
  }

  /** Makes sure the queue is pumped again within `delayMs`. */
  #arm(delayMs: number): void {
    if (!this.#closed) this.#timer.arm(delayMs);
  }
}
