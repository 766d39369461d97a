// The one bounded queue of the SDK, for spans and scores alike: it holds items within a count and a byte bound, cuts
// batches, keeps up to `maxConcurrent` sends in flight, retries from the queue, answers flushes, and counts.
import { settleWithin } from "../lifecycle/settle-within.js";
import { counted, describeError } from "../log/describe.js";
import { Backoff, WakeTimer } from "./backoff.js";
import { DeliveryLog, inSeconds, whatEnded } from "./delivery-log.js";
import {
  type AnswerWindow,
  answeredSince,
  answerWindow,
  FlushWaiters,
  isGivenUp,
  lastRequestEnd,
  noteAnswer,
  noteGivenUp,
  SENDS_GRACE_MS,
  type Send,
  startSend,
  takeLost,
  watchLostSends,
} from "./flush-wait.js";
import {
  bindDeliveryMetrics,
  type DeliveryHealth,
  type DropReason,
  observeDelivery,
  type SendOutcome,
} from "./health.js";
import { type Entry, ItemBuffer } from "./item-buffer.js";
import { answeredBy, type BatchQueueOptions, type FlushResult } from "./send.js";

/**
 * Batches go out when `flushAt` items wait, when the oldest has waited `flushIntervalMs`, or when a flush asks. A
 * batch that fails with a retryable fault goes back to the front and the queue waits (backoff, or `Retry-After`);
 * while the fault lasts, one batch at a time probes the server. Timers are unref'd; constructing one starts nothing.
 */
export class BatchQueue<T> {
  readonly #options: BatchQueueOptions<T>;
  readonly #log: DeliveryLog;
  readonly #buffer = new ItemBuffer<T>();
  readonly #backoff = new Backoff();
  readonly #waiters = new FlushWaiters();
  readonly #sends = new Map<Promise<void>, Send<Entry<T>[]>>();
  #inFlightItems = 0;
  #inFlightBytes = 0;
  /** A flush rechecks a server that did not answer: one attempt may start at once, beside any under way. */
  #recheckProbe = false;
  /** The window in which the server has to answer the flush under way, if it has one. */
  #window: AnswerWindow | undefined;
  /** Whether the server answered the last attempt that ended (undefined before any). */
  #lastAnswered: boolean | undefined;
  /** Items a send answered after shutdown asks to retry: nothing is sent again, the shutdown counts them. */
  readonly #leftovers: T[] = [];
  readonly #timer = new WakeTimer(() => {
    this.#timerDue = true;
    this.#pump();
  });
  #timerDue = false;
  #pumpScheduled = false;
  #closed = false;

  constructor(options: BatchQueueOptions<T>) {
    this.#options = options;
    this.#log = new DeliveryLog(options.owner, options.items, () => this.size, options.spill !== undefined);
    options.spill?.attach({
      owner: options.owner,
      items: options.items,
      counts: this.#log.counts,
      drop: (reason, count, detail) => this.drop(reason, count, detail),
      record: (outcome) => (outcome.retry ? this.#log.failed(outcome.retry.fault) : this.#settle([], outcome)),
      failing: () => this.#backoff.failing,
    });
    observeDelivery(this, this.#log.counts, options.meterProvider);
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
    if (!fits() && !this.#spillToFit(fits)) {
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

  /**
   * At the memory bound, the oldest waiting batches go to the spill directory until the new item fits; false when
   * there is none, nothing waits in memory, or the batches being written fill the queue's bounds a second time.
   */
  #spillToFit(fits: () => boolean): boolean {
    const { spill, maxBatchItems, maxBatchBytes, maxQueueItems, maxQueueBytes } = this.#options;
    while (!fits()) {
      if (!spill || this.#buffer.length === 0 || !spill.hasRoom(maxQueueItems, maxQueueBytes)) return false;
      const entries = this.#buffer.take(maxBatchItems, maxBatchBytes);
      const bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
      const items = entries.map((e) => e.item);
      void spill.write(items, "queueFull", undefined, bytes).then(() => this.#waiters.settle(entries));
    }
    return true;
  }

  /** Counts items given up on outside the queue (an item too large to queue, sampled out...), and logs them. */
  drop(reason: DropReason, count: number, detail: string): void {
    this.#log.dropped(reason, count, detail);
  }

  /**
   * Sends every item queued before this call and resolves when each was delivered or dropped, or at `deadline` (epoch
   * ms). A shutdown (`final`) whose queue has had no answer yet, and a flush to a server a flush gave up on, send at
   * once and wait one request's timeout for an answer (the recheck): only an answer gives them until `deadline`.
   */
  async flush(deadline: number, final = false): Promise<FlushResult> {
    const remaining = this.size;
    if (remaining === 0) return { pending: 0 };
    const started = Date.now();
    const { server, attemptTimeoutMs } = this.#options;
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
    const stopWatching = watchLostSends(this.#sends, deadline, () => this.#reclaimLost(), attemptTimeoutMs);
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
   * The line a flush (`call`: `flush()`, `forceFlush()`) that ended with items undelivered writes, for its caller: how
   * long it waited (its deadline, or the window the server did not answer in) and what stays queued.
   */
  gaveUpLine(call: string, flushTimeoutMs: number, result: FlushResult): string {
    const { owner, items } = this.#options;
    const { pending, unanswered } = result;
    const after = unanswered
      ? `${inSeconds(unanswered.waitedMs)}, as the server answered no request within one request's timeout (${inSeconds(unanswered.windowMs)}) after an earlier flush gave up on it,`
      : `${flushTimeoutMs / 1000} s`;
    return `${owner}: ${call} gave up after ${after} with ${counted(pending, items)} not yet delivered; they stay queued and are retried`;
  }

  /** The window in which the server has to answer a flush to a server a flush gave up on, or a first shutdown. */
  #answerWindow(final: boolean): AnswerWindow | undefined {
    const { server, attemptTimeoutMs } = this.#options;
    if (server === undefined || attemptTimeoutMs === undefined) return undefined;
    if (!isGivenUp(server) && !(final && this.#lastAnswered !== true)) return undefined;
    return answerWindow(server, attemptTimeoutMs);
  }

  /**
   * Flushes as `flush(deadline, true)`, then stops: sends under way get `SENDS_GRACE_MS` more and are aborted; what is
   * left is written to the spill directory if there is one, else dropped and counted in one line saying what ended
   * the wait. Items offered afterwards are dropped.
   */
  async shutdown(deadline: number): Promise<FlushResult> {
    const { server } = this.#options;
    if (this.size > 0) {
      // How long it waits at most, and why: said at once while the server fails or a flush gave up on it.
      const until = Math.min(this.#answerWindow(true)?.until ?? deadline, deadline);
      const [failing, givenUp] = [this.#backoff.failing, server !== undefined && isGivenUp(server)];
      this.#log.shutdownWait({ held: this.size, deadline, until, failing, givenUp });
    }
    const result = await this.flush(deadline, true);
    this.#closed = true;
    this.#timer.cancel();
    const queued = this.#buffer.take(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    this.#waiters.settle(queued);
    const left = this.#leftovers;
    for (const entry of queued) left.push(entry.item);
    if (this.#sends.size > 0) {
      // None once the server has answered nothing for a request's timeout: it will not answer in the next moment.
      if (!result.unanswered)
        await settleWithin(() => Promise.allSettled([...this.#sends.keys()]), { timeoutMs: SENDS_GRACE_MS });
      for (const send of takeLost(this.#sends, true)) {
        this.#release(send);
        for (const entry of send.batch) left.push(entry.item);
      }
    }
    const ended = whatEnded(result.unanswered);
    const { spill, maxBatchItems } = this.#options;
    if (spill)
      for (let at = 0; at < left.length; at += maxBatchItems)
        void spill.write(left.slice(at, at + maxBatchItems), "shutdown", ended);
    else if (left.length > 0) this.drop("shutdown", left.length, `${ended}${this.#log.lastFailureText()}`);
    left.length = 0;
    await spill?.close();
    this.#log.close();
    return result;
  }

  /** The figures of `health()`. */
  health(): DeliveryHealth {
    const { length: queued, bytes: queuedBytes } = this.#buffer;
    const onDisk = this.#options.spill?.onDisk ?? 0;
    return this.#log.health({ onDisk, queued, queuedBytes, inFlight: this.#inFlightItems, shutdown: this.#closed });
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

  /** Starts sends while a slot is free, the queue is not waiting out a failure, and a batch is due. */
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
    const send = startSend(batch, this.#options.attemptTimeoutMs);
    const sending: Promise<void> = this.#sendOne(send).finally(() => {
      this.#sends.delete(sending);
      if (!this.#closed && !send.lost) this.#pump();
    });
    this.#sends.set(sending, send);
  }

  /**
   * Queues again, at the front, the items of sends that outlived their own deadline without settling: no answer can
   * come any more, so a body is never sent twice while its first request may still be answered.
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

  async #sendOne(send: Send<Entry<T>[]>): Promise<void> {
    const { batch } = send;
    const items = batch.map((e) => e.item);
    let outcome: SendOutcome<T>;
    try {
      outcome = await this.#options.send(items, send.controller.signal, send.live);
    } catch (error) {
      outcome = { delivered: 0, retry: { items, fault: { kind: "error", description: describeError(error) } } };
    } finally {
      // No longer in flight before they are requeued, so no count holds them twice.
      if (!send.lost) this.#release(send);
    }
    if (send.lost) return; // taken back as lost and queued again: its late outcome changes nothing
    this.#lastAnswered = answeredBy(outcome) ?? this.#lastAnswered;
    if (this.#lastAnswered && this.#options.server !== undefined) noteAnswer(this.#options.server);
    this.#settle(batch, outcome);
  }

  #release(send: Send<Entry<T>[]>): void {
    send.answerBy = 0;
    this.#inFlightItems -= send.batch.length;
    for (const entry of send.batch) this.#inFlightBytes -= entry.bytes;
  }

  /** Counts and logs what became of a batch; puts what is to be retried back at the front. */
  #settle(batch: Entry<T>[], outcome: SendOutcome<T>): void {
    const retry = outcome.retry && outcome.retry.items.length > 0 ? outcome.retry : undefined;
    const retried = new Set<T>(retry?.items);
    for (const drop of outcome.dropped ?? []) {
      if (drop.fault) this.#log.failed(drop.fault);
      this.#log.dropped(drop.reason, drop.count, drop.logged ? undefined : drop.detail);
    }
    if (outcome.delivered > 0) {
      if (!retry) this.#backoff.succeeded();
      this.#options.spill?.serverAnswered();
      this.#log.delivered(outcome.delivered);
    }
    if (retry && this.#closed) {
      // Once shut down, nothing is sent again: what is left is counted by the shutdown.
      this.#log.failed(retry.fault);
      this.#leftovers.push(...retry.items);
    } else if (retry)
      this.#requeue(
        retry,
        batch.filter((e) => retried.has(e.item)),
      );
    this.#waiters.settle(retry ? batch.filter((e) => !retried.has(e.item)) : batch);
  }

  #requeue(retry: NonNullable<SendOutcome<T>["retry"]>, entries: Entry<T>[]): void {
    this.#buffer.putBack(entries);
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

  #arm(delayMs: number): void {
    if (!this.#closed) this.#timer.arm(delayMs);
  }
}
