import { describeError } from "../log/describe.js";
import { Backoff } from "./backoff.js";
import type { BatchQueueOptions, FlushResult } from "./batch-queue-options.js";
import { DeliveryLog, type DropReason } from "./delivery-log.js";
import { bindDeliveryMetrics, observeDelivery } from "./delivery-metrics.js";
import { type DeliveryHealth, DeliveryStats } from "./delivery-stats.js";
import { FlushWaiters } from "./flush-waiters.js";
import { type Entry, ItemBuffer } from "./item-buffer.js";
import { lastRequestEnd, type SendUnderWay, startSend, takeLost, watchLostSends } from "./lost-sends.js";
import { answeredBy, type SendOutcome } from "./outcome.js";
import { ShutdownLeftovers } from "./shutdown-leftovers.js";
import { SpillGate } from "./spill-gate.js";
import {
  type AnswerWindow,
  answeredSince,
  answerWindow,
  isGivenUp,
  noteAnswer,
  noteGivenUp,
} from "./unanswered-servers.js";
import { WakeTimer } from "./wake-timer.js";

/** A send under way: its batch, the controller of its own signal, until when it may be answered. */
type Send<T> = SendUnderWay<Entry<T>[]>;

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
  /** The window in which the server has to answer the flush under way, if it has one. */
  #window: AnswerWindow | undefined;
  /** Whether the server answered the last attempt that ended (undefined before any). */
  #lastAnswered: boolean | undefined;
  #pumpScheduled = false;
  #timerDue = false;
  #closed = false;
  /** Spill hook: where batches go instead of being dropped; what comes back from disk is recorded as a live outcome. */
  readonly #spill: SpillGate<T> | undefined;
  /** What a shutdown gives up on: written to the spill directory, or dropped. */
  readonly #leftovers: ShutdownLeftovers<T>;

  constructor(options: BatchQueueOptions<T>) {
    this.#options = options;
    this.#spill = SpillGate.of(options, this.#buffer, this.#waiters, this.#stats, {
      drop: (reason, count, detail) => this.drop(reason, count, detail),
      record: (outcome) => (outcome.retry ? this.#stats.failed(outcome.retry.fault) : this.#record([], outcome)),
      failing: () => this.#backoff.failing,
    });
    this.#log = new DeliveryLog(options.owner, options.items, () => this.size, options.spill !== undefined);
    this.#leftovers = new ShutdownLeftovers({
      spill: this.#spill,
      release: (send) => this.#release(send),
      drop: (count, detail) => this.drop("shutdown", count, detail),
      lastFailureText: () => this.#stats.lastFailureText(),
    });
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
    let bytes = 0;
    try {
      bytes = this.#options.sizeOf(item);
    } catch {}
    return this.offer(bytes, () => item) !== undefined;
  }

  /**
   * Queues the item `make` returns (`bytes` estimated) and returns it; returns undefined (and counts the drop) when the
   * queue is closed or full. `make` is called only once the item is queued: nothing is made for an item dropped.
   */
  offer(bytes: number, make: () => T): T | undefined {
    if (this.#closed) {
      this.drop("shutdown", 1, `an item arrived after shutdown()`);
      return undefined;
    }
    const { maxQueueItems, maxQueueBytes, items } = this.#options;
    const fits = () => this.size < maxQueueItems && this.#buffer.bytes + this.#inFlightBytes + bytes <= maxQueueBytes;
    // Spill hook: at the memory bound, the oldest waiting batch goes to disk instead of this item being dropped.
    if (!fits() && !this.#spill?.makeRoom(fits)) {
      const heldBytes = this.#buffer.bytes + this.#inFlightBytes;
      const held = `${this.size} ${items} (${Math.round(heldBytes / 1024)} KiB) held`;
      const limits = `limits ${maxQueueItems} ${items}, ${Math.round(maxQueueBytes / 1024)} KiB`;
      this.drop("queueFull", 1, `${held}, ${limits}; raise the queue limits or check that the server is reachable`);
      return undefined;
    }
    const item = make();
    this.#buffer.add(item, bytes);
    if (this.#options.immediate || this.#buffer.length >= this.#options.flushAt) this.#schedulePump();
    else this.#arm(this.#options.flushIntervalMs);
    return item;
  }

  /** Counts items given up on outside the queue (an item too large to queue, sampled out...), and logs them. */
  drop(reason: DropReason, count: number, detail: string): void {
    this.#stats.dropped(reason, count);
    this.#log.dropped(reason, count, detail);
  }

  /**
   * Sends every item queued before this call, partial batches included, and resolves when each of them was
   * delivered or dropped, or when `deadline` (epoch ms) passes, whatever the server does. A shutdown (`final`) whose
   * queue has no answer of the server yet, and any flush to a server an earlier flush gave up on, sends at once and
   * waits one request's timeout (`attemptTimeoutMs`) for an answer, in a window shared with the calls that overlap;
   * only an answer gives it the time until `deadline`.
   */
  async flush(deadline: number, final = false): Promise<FlushResult> {
    const remaining = this.size;
    if (remaining === 0) return { pending: 0 };
    const started = Date.now();
    const server = this.#options.server;
    const window = this.#answerWindow(final);
    const early = window !== undefined && window.until < deadline ? window : undefined;
    if (window !== undefined) {
      this.#recheckProbe = true;
      this.#backoff.probeNow();
    }
    this.#window = early;
    let cut = false;
    const extend = (): boolean | number => {
      if (answeredSince(server as string, (early as AnswerWindow).from)) return true;
      // A request under way (in a window open when this call began) may still be answered: asked again at its end.
      const end = (early as AnswerWindow).until > started ? lastRequestEnd(this.#sends.values()) : 0;
      cut = end <= Date.now();
      return cut ? false : end;
    };
    const waiting = this.#waiters.wait(this.#buffer.lastSeq, remaining, deadline, early && { at: early.until, extend });
    const stopWatching = watchLostSends(this.#sends, deadline, () => this.#reclaimLost(), this.#options.lostAfterMs);
    try {
      this.#reclaimLost();
      // A timer armed during an earlier request may have been cancelled with it: the pump arms one of this flush.
      this.#timer.cancel();
      this.#pump();
      const pending = await waiting;
      // Given up without an answer since the flush began, while a request waited for one or the last got none.
      const unanswered = this.#sends.size > 0 || this.#lastAnswered === false || cut;
      const silent = pending > 0 && server !== undefined && !answeredSince(server, window?.from ?? started);
      if (silent && unanswered) noteGivenUp(server);
      if (!cut || pending === 0 || early === undefined) return { pending };
      return { pending, unanswered: { waitedMs: Date.now() - started, windowMs: early.until - early.from } };
    } finally {
      if (window !== undefined) this.#recheckProbe = false;
      this.#window = undefined;
      stopWatching();
      this.#log.report({ dueOnly: true });
    }
  }

  /**
   * The window in which the server has to answer this call: for a flush to a server a flush gave up on, and for a
   * shutdown whose queue has had no answer yet; undefined otherwise (the call waits until its deadline).
   */
  #answerWindow(final: boolean): AnswerWindow | undefined {
    const { server, attemptTimeoutMs } = this.#options;
    if (server === undefined || attemptTimeoutMs === undefined) return undefined;
    if (!isGivenUp(server) && !(final && this.#lastAnswered !== true)) return undefined;
    return answerWindow(server, attemptTimeoutMs);
  }

  /**
   * Flushes until `deadline` (or until the server has answered no request within one request's timeout, see
   * `flush`), then stops: sends under way get a moment more (`SENDS_GRACE_MS`) for their answer, which counts, and
   * are then aborted; what is given up on is written to the spill directory when there is one, else dropped and
   * counted in one line that says what ended the wait (see `ShutdownLeftovers`). A spill directory does not shorten
   * the wait. Items pushed afterwards are dropped. Leaves no timer behind.
   */
  async shutdown(deadline: number): Promise<FlushResult> {
    this.#announceWait(deadline);
    const result = await this.flush(deadline, true);
    this.#closed = true;
    this.#timer.cancel();
    const queued = this.#buffer.takeAll();
    this.#waiters.settle(queued);
    await this.#leftovers.end(result, queued, this.#sends); // Spill hook: what is left goes to disk, if it can
    this.#log.close();
    return result;
  }

  /**
   * At the start of a shutdown with items held: how long it waits at most, and why; one line at once when the
   * server fails or a flush gave up on it, else in the first line of a failure during the shutdown.
   */
  #announceWait(deadline: number): void {
    const held = this.size;
    if (held === 0) return;
    const until = Math.min(this.#answerWindow(true)?.until ?? deadline, deadline);
    const givenUp = this.#options.server !== undefined && isGivenUp(this.#options.server);
    const failure = this.#stats.health({ queued: 0, queuedBytes: 0, inFlight: 0, shutdown: false }).lastError;
    const failing = this.#backoff.failing;
    this.#log.shutdownWait({ held, deadline, until, failing, givenUp, failure: failure?.description });
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
    const send: Send<T> = startSend(batch, this.#options.lostAfterMs);
    const sending: Promise<void> = this.#sendOne(send).finally(() => {
      this.#sends.delete(sending);
      if (!this.#closed && !send.lost) this.#pump();
    });
    this.#sends.set(sending, send);
  }

  /**
   * Queues again, at the front, the items of sends that outlived their own deadline without settling: past it, no
   * answer can come any more (their request's timeout has passed), so a body is never sent twice while its first
   * request may still be answered.
   */
  #reclaimLost(): void {
    if (this.#sends.size === 0 || this.#closed) return;
    let reclaimed = 0;
    for (const send of takeLost(this.#sends)) {
      this.#release(send);
      this.#buffer.putBack(send.batch);
      reclaimed += send.batch.length;
    }
    if (reclaimed === 0) return;
    this.#pump();
    this.#log.resent(reclaimed);
  }

  async #sendOne(send: Send<T>): Promise<void> {
    const { batch } = send;
    let outcome: SendOutcome<T>;
    try {
      outcome = await this.#options.send(
        batch.map((e) => e.item),
        send.controller.signal,
        (stepMs) => send.live(stepMs),
      );
    } catch (error) {
      outcome = {
        delivered: 0,
        retry: { items: batch.map((e) => e.item), fault: { kind: "error", description: describeError(error) } },
      };
    } finally {
      // No longer in flight before they are requeued, so no count holds them twice.
      if (!send.lost) this.#release(send);
    }
    if (send.lost) return; // taken back as lost and queued again: its late outcome changes nothing
    this.#noteAnswer(outcome);
    this.#record(batch, outcome);
  }

  /** A send is no longer in flight: no answer is waited for any more. */
  #release(send: Send<T>): void {
    send.answerBy = 0;
    this.#inFlightItems -= send.batch.length;
    for (const entry of send.batch) this.#inFlightBytes -= entry.bytes;
  }

  /** Whether the server answered the attempt (accepted it, or answered with a status), for the flushes to come. */
  #noteAnswer(outcome: SendOutcome<T>): void {
    this.#lastAnswered = answeredBy(outcome) ?? this.#lastAnswered;
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
    // Once shut down, nothing is sent again: what is left is counted by the shutdown.
    if (retry && this.#closed) {
      this.#stats.failed(retry.fault);
      this.#leftovers.add(retry.items);
    } else if (retry)
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
    const window = this.#window;
    if (this.#recheckProbe) {
      // A flush waits to see whether the server answers now: the probe it was promised goes out at once.
      this.#backoff.probeNow();
      this.#schedulePump();
    } else if (window !== undefined && this.#inFlightItems === 0 && Date.now() + delayMs >= window.until) {
      // No attempt can be answered within the window: the flush waiting for one stops now.
      this.#waiters.endEarly();
    } else this.#arm(delayMs);
  }

  /** Makes sure the queue is pumped again within `delayMs`. */
  #arm(delayMs: number): void {
    if (!this.#closed) this.#timer.arm(delayMs);
  }
}
