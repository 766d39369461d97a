import { describeError } from "../log/describe.js";
import { getGlobalLogger } from "../log/logger.js";
import { retryDelayMs } from "../transport/retry.js";
import { DeliveryLog, type DropReason, type Fault } from "./delivery-log.js";
import { bindDeliveryMetrics, observeDelivery } from "./delivery-metrics.js";

/** Settings of a {@link BatchQueue}. */
export interface BatchQueueOptions<T> {
  /** Names the owner in log lines (`SvcSpanProcessor`). */
  owner: string;
  /** What the items are called in log lines, plural (`spans`). */
  items: string;
  /** Queue length that starts a send at once. */
  flushAt: number;
  /** Longest time a partial batch waits, in milliseconds. */
  flushIntervalMs: number;
  /** Most items per batch. */
  maxBatchItems: number;
  /** Most bytes per batch (by `sizeOf`); a single larger item travels alone. */
  maxBatchBytes: number;
  /** Most items held (waiting or being sent); further items are dropped. */
  maxQueueItems: number;
  /** Most bytes held (by `sizeOf`); further items are dropped. */
  maxQueueBytes: number;
  /** Batches being sent at the same time. */
  maxConcurrent: number;
  /** Estimated size of an item in bytes. */
  sizeOf: (item: T) => number;
  /** Sends a batch; must not reject (a rejection counts as a failure that is retried). */
  send: (batch: T[], signal: AbortSignal) => Promise<SendOutcome<T>>;
  /** Start sending as soon as an item is queued (no waiting for a batch to fill). @defaultValue false */
  immediate?: boolean;
  /**
   * A send still unsettled this long after it started is taken as lost: a runtime that cancels what an ended request
   * left running (Cloudflare Workers) never settles it. The next flush queues its items again. @defaultValue never
   */
  lostAfterMs?: number;
}

/** What became of a batch. Items neither delivered, dropped nor retried are counted as delivered. */
export interface SendOutcome<T> {
  /** Items the server accepted. */
  delivered: number;
  /**
   * Items given up on, by cause; `logged` when the sender has already said so in its own words; `fault` when a
   * failed request was the cause (it becomes the last error of `health()`).
   */
  dropped?: readonly { count: number; reason: DropReason; detail: string; logged?: boolean; fault?: Fault }[];
  /** Items to try again after a wait (a retryable failure), with what went wrong. */
  retry?: { items: T[]; fault: Fault; retryAfterMs?: number };
}

/** What a delivery queue (spans, or scores) has done so far: a plain object, cheap to read at any time. */
export interface DeliveryHealth {
  /** Items waiting to be sent (including those waiting out a failure). */
  queued: number;
  /** Estimated bytes of the items waiting. */
  queuedBytes: number;
  /** Items in requests under way. */
  inFlight: number;
  /** Items the server accepted. */
  sent: number;
  /** Items given up on, by reason. */
  dropped: Record<DropReason, number>;
  /** Failed attempts that were retried. */
  retries: number;
  /** The last failed request, retried or given up on: the kind of failure, its status or error code, the host, when (no secret). */
  lastError:
    | { kind: string; status?: number; code?: string; host?: string; description: string; at: string }
    | undefined;
  /** When the server last accepted items (ISO 8601). */
  lastSuccessAt: string | undefined;
  /** Whether the component was shut down. */
  shutdown: boolean;
}

/** Outcome of waiting for a flush. */
export interface FlushResult {
  /** Items that were queued when the flush began and are still neither delivered nor dropped. */
  pending: number;
}

interface Entry<T> {
  item: T;
  bytes: number;
  seq: number;
}

/** A send under way: its own signal (made when it starts, in the request that starts it) and its batch. */
interface Send<T> {
  controller: AbortController;
  batch: Entry<T>[];
  startedAt: number;
  /** Given up on as lost; its items were queued again and its late outcome changes nothing. */
  lost: boolean;
}

interface Waiter {
  target: number;
  remaining: number;
  resolve: () => void;
}

/**
 * Longest wait between two attempts of a queue, unless the server's `Retry-After` asks for more: it bounds how long
 * delivery takes to resume once the server is back. While a fault lasts, each attempt is one batch.
 */
export const MAX_QUEUE_RETRY_DELAY_MS = 10_000;

const NO_DROPS: Record<DropReason, number> = {
  queueFull: 0,
  tooLarge: 0,
  rejected: 0,
  auth: 0,
  shutdown: 0,
  sampledOut: 0,
  failed: 0,
};

/**
 * The one bounded queue of the SDK, for spans and scores alike: items wait in order, bounded in count and in
 * bytes; batches (bounded in count and bytes) go out when `flushAt` items wait, when the oldest has waited
 * `flushIntervalMs`, or when a flush asks; at most `maxConcurrent` at a time. A batch that fails with a
 * retryable fault goes back to the front and the queue waits (exponential backoff with jitter, or the server's
 * `Retry-After`) before the next attempt: items are held through an outage for as long as they fit in the
 * bounds, and only what does not fit is dropped and counted. While a fault lasts, one batch at a time probes the
 * server, at most every {@link MAX_QUEUE_RETRY_DELAY_MS}. Timers are unref'd.
 */
export class BatchQueue<T> {
  readonly #options: BatchQueueOptions<T>;
  readonly #log: DeliveryLog;
  #entries: Entry<T>[] = [];
  #bytes = 0;
  #seq = 0;
  #inFlight = 0;
  readonly #inFlightSends = new Map<Promise<void>, Send<T>>();
  #inFlightItems = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pausedUntil = 0;
  #failures = 0;
  #draining = 0;
  readonly #waiters = new Set<Waiter>();
  #closed = false;
  #sent = 0;
  #retries = 0;
  readonly #dropped = { ...NO_DROPS };
  #lastError: DeliveryHealth["lastError"];
  #lastHint: string | undefined;
  #lastSuccessAt: number | undefined;

  constructor(options: BatchQueueOptions<T>) {
    this.#options = options;
    this.#log = new DeliveryLog(options.owner, options.items, () => this.#entries.length + this.#inFlightItems);
    observeDelivery(this);
  }

  /** What the items are called (`spans`, `scores`). */
  get items(): string {
    return this.#options.items;
  }

  /** Items waiting and being sent. */
  get size(): number {
    return this.#entries.length + this.#inFlightItems;
  }

  /** Items queued since the queue was created (grows only). */
  get accepted(): number {
    return this.#seq;
  }

  /** Queues an item; returns false (and counts the drop) when the queue is closed or full. */
  push(item: T): boolean {
    if (this.#closed) {
      this.drop("shutdown", 1, `an item arrived after shutdown()`);
      return false;
    }
    const { maxQueueItems, maxQueueBytes } = this.#options;
    let bytes: number;
    try {
      bytes = this.#options.sizeOf(item);
    } catch {
      bytes = 0;
    }
    if (this.size >= maxQueueItems || this.#bytes + bytes > maxQueueBytes) {
      const held = `${this.size} ${this.#options.items} (${Math.round(this.#bytes / 1024)} KiB) held`;
      const limits = `limits ${maxQueueItems} ${this.#options.items}, ${Math.round(maxQueueBytes / 1024)} KiB`;
      this.drop("queueFull", 1, `${held}, ${limits}; raise the queue limits or check that the server is reachable`);
      return false;
    }
    this.#entries.push({ item, bytes, seq: ++this.#seq });
    this.#bytes += bytes;
    if (this.#options.immediate || this.#entries.length >= this.#options.flushAt) this.#schedulePump();
    else this.#arm(this.#options.flushIntervalMs);
    return true;
  }

  /** Counts items given up on outside the queue (an item too large to queue, sampled out...), and logs them. */
  drop(reason: DropReason, count: number, detail: string): void {
    this.#dropped[reason] += count;
    this.#log.dropped(reason, count, detail);
  }

  /**
   * Sends every item queued before this call, partial batches included, and resolves when each of them was
   * delivered or dropped, or when `deadline` (epoch ms) passes, whatever the server does.
   */
  async flush(deadline: number): Promise<FlushResult> {
    const waiter: Waiter = { target: this.#seq, remaining: this.size, resolve: () => {} };
    if (waiter.remaining === 0) return { pending: 0 };
    const done = new Promise<void>((resolve) => {
      waiter.resolve = resolve;
    });
    this.#waiters.add(waiter);
    this.#draining++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lostCheck: ReturnType<typeof setTimeout> | undefined;
    // Sends that outlive lostAfterMs while this flush waits are taken back and sent again, by this flush.
    const checkLost = (): void => {
      const at = this.#nextLostAt();
      if (at === undefined || at >= deadline) return;
      lostCheck = setTimeout(
        () => {
          this.#reclaimLost();
          this.#pump();
          checkLost();
        },
        Math.max(0, at - Date.now()),
      );
    };
    try {
      this.#reclaimLost();
      // A timer armed during an earlier request may have been cancelled with it: the pump arms one of this flush.
      this.#disarm();
      this.#pump();
      checkLost();
      // Held (not unref'd): a caller awaiting flush() keeps the process alive until it resolves, at the latest.
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
      clearTimeout(lostCheck);
      this.#waiters.delete(waiter);
      this.#draining--;
      this.#log.report({ dueOnly: true });
    }
    return { pending: waiter.remaining };
  }

  /**
   * Flushes until `deadline`, then stops: sends still running are aborted and whatever is left is dropped and
   * counted (one line). Items pushed afterwards are dropped. Leaves no timer behind.
   */
  async shutdown(deadline: number): Promise<FlushResult> {
    const result = await this.flush(deadline);
    this.#closed = true;
    this.#disarm();
    const left = this.size;
    if (left > 0) {
      const cause = this.#lastError
        ? `; last failure: ${this.#lastError.description}${this.#lastHint ? `. ${this.#lastHint}` : ""}`
        : "";
      for (const send of this.#inFlightSends.values()) send.controller.abort();
      const entries = this.#entries.splice(0);
      this.#bytes = 0;
      this.#settle(entries);
      this.drop("shutdown", left, `the shutdown deadline passed before they could be delivered${cause}`);
      await Promise.allSettled([...this.#inFlightSends.keys()]);
    }
    this.#log.close();
    return result;
  }

  /** Counts for `health()`. */
  health(): DeliveryHealth {
    return {
      queued: this.#entries.length,
      queuedBytes: this.#bytes,
      inFlight: this.#inFlightItems,
      sent: this.#sent,
      dropped: { ...this.#dropped },
      retries: this.#retries,
      lastError: this.#lastError,
      lastSuccessAt: this.#lastSuccessAt === undefined ? undefined : new Date(this.#lastSuccessAt).toISOString(),
      shutdown: this.#closed,
    };
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

  #pumpScheduled = false;

  /**
   * Starts sends while a slot is free, the queue is not waiting out a failure, and a batch is due. While a fault
   * lasts, one batch at a time probes the server; the others follow once it is accepted.
   */
  #pump(): void {
    const { flushAt, immediate } = this.#options;
    const maxConcurrent = this.#failures > 0 ? 1 : this.#options.maxConcurrent;
    const now = Date.now();
    if (now < this.#pausedUntil) {
      this.#arm(this.#pausedUntil - now);
      return;
    }
    while (
      this.#inFlight < maxConcurrent &&
      this.#entries.length > 0 &&
      (immediate || this.#draining > 0 || this.#entries.length >= flushAt || this.#timerDue)
    ) {
      this.#start(this.#takeBatch());
    }
    this.#timerDue = false;
    if (this.#entries.length > 0 && this.#inFlight < maxConcurrent) this.#arm(this.#options.flushIntervalMs);
  }

  #timerDue = false;

  #takeBatch(): Entry<T>[] {
    const { maxBatchItems, maxBatchBytes } = this.#options;
    let count = 0;
    let bytes = 0;
    for (const entry of this.#entries) {
      if (count >= maxBatchItems || (count > 0 && bytes + entry.bytes > maxBatchBytes)) break;
      count++;
      bytes += entry.bytes;
    }
    this.#bytes -= bytes;
    return this.#entries.splice(0, count);
  }

  #start(batch: Entry<T>[]): void {
    // Once per batch: a meter provider registered after the queue was made is found here.
    bindDeliveryMetrics();
    this.#inFlight++;
    this.#inFlightItems += batch.length;
    const send: Send<T> = { controller: new AbortController(), batch, startedAt: Date.now(), lost: false };
    const sending: Promise<void> = this.#sendOne(send).finally(() => {
      this.#inFlightSends.delete(sending);
      if (send.lost) return;
      this.#inFlight--;
      if (!this.#closed) this.#pump();
    });
    this.#inFlightSends.set(sending, send);
  }

  /** Queues again, at the front, the items of sends that outlived `lostAfterMs` without settling. */
  #reclaimLost(): void {
    const { lostAfterMs } = this.#options;
    if (lostAfterMs === undefined || this.#inFlight === 0) return;
    const now = Date.now();
    let reclaimed = 0;
    for (const send of this.#inFlightSends.values()) {
      if (send.lost || now - send.startedAt < lostAfterMs) continue;
      send.lost = true;
      send.controller.abort();
      this.#inFlight--;
      this.#inFlightItems -= send.batch.length;
      this.#entries.unshift(...send.batch);
      for (const entry of send.batch) this.#bytes += entry.bytes;
      reclaimed += send.batch.length;
    }
    if (reclaimed > 0)
      getGlobalLogger().warn(
        `${this.#options.owner}: ${reclaimed} ${this.#options.items} of sends that never finished (the runtime ended the request that started them) are sent again`,
      );
  }

  /** When the earliest send under way will be taken as lost, if the queue gives up on sends at all. */
  #nextLostAt(): number | undefined {
    const { lostAfterMs } = this.#options;
    if (lostAfterMs === undefined) return undefined;
    let earliest: number | undefined;
    for (const send of this.#inFlightSends.values())
      if (!send.lost && (earliest === undefined || send.startedAt < earliest)) earliest = send.startedAt;
    return earliest === undefined ? undefined : earliest + lostAfterMs;
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
      if (!send.lost) this.#inFlightItems -= batch.length;
    }
    if (this.#closed || send.lost) {
      // Shutdown has counted what was still held; a late answer changes nothing.
      return;
    }
    const retry = outcome.retry && outcome.retry.items.length > 0 ? outcome.retry : undefined;
    const retried = retry ? new Set<T>(retry.items) : undefined;
    const settled = retried ? batch.filter((e) => !retried.has(e.item)) : batch;
    this.#sent += outcome.delivered;
    for (const drop of outcome.dropped ?? []) {
      if (drop.fault) this.#noteError(drop.fault);
      if (!drop.logged) this.drop(drop.reason, drop.count, drop.detail);
      else {
        this.#dropped[drop.reason] += drop.count;
        this.#log.lost(drop.count);
      }
    }
    if (outcome.delivered > 0) {
      this.#lastSuccessAt = Date.now();
      if (!retry) this.#failures = 0;
      this.#log.delivered(outcome.delivered);
    }
    if (retry)
      this.#requeue(
        batch.filter((e) => retried?.has(e.item)),
        retry,
      );
    this.#settle(settled);
  }

  /** Puts failed items back at the front and waits before the next attempt. */
  #requeue(entries: Entry<T>[], retry: NonNullable<SendOutcome<T>["retry"]>): void {
    this.#entries.unshift(...entries);
    for (const entry of entries) this.#bytes += entry.bytes;
    this.#retries += 1;
    const now = Date.now();
    // Batches that were in flight together fail together: the backoff grows once per round, not per batch.
    if (now >= this.#pausedUntil) {
      this.#pausedUntil = now + retryDelayMs(this.#failures, retry.retryAfterMs, { maxMs: MAX_QUEUE_RETRY_DELAY_MS });
      this.#failures += 1;
    } else if (retry.retryAfterMs !== undefined) {
      this.#pausedUntil = Math.max(this.#pausedUntil, now + retry.retryAfterMs);
    }
    const delayMs = this.#pausedUntil - now;
    const { fault } = retry;
    this.#noteError(fault);
    this.#log.retrying(fault, entries.length, delayMs);
    this.#arm(delayMs);
  }

  /** Keeps a failed attempt as the last error of `health()`. */
  #noteError(fault: Fault): void {
    this.#lastError = {
      kind: fault.kind,
      status: fault.status,
      code: fault.code,
      host: fault.host,
      description: fault.description,
      at: new Date().toISOString(),
    };
    this.#lastHint = fault.hint;
  }

  /** Marks entries delivered or dropped for the flushes waiting on them. */
  #settle(entries: readonly Entry<T>[]): void {
    if (this.#waiters.size === 0 || entries.length === 0) return;
    for (const waiter of this.#waiters) {
      for (const entry of entries) if (entry.seq <= waiter.target) waiter.remaining--;
      if (waiter.remaining <= 0) waiter.resolve();
    }
  }

  /** Makes sure the queue is pumped again within `delayMs` (an earlier timer already set is kept). */
  #arm(delayMs: number): void {
    if (this.#closed) return;
    // A timer armed earlier with a delay no longer than this one is due first: no clock read (every push comes here).
    if (this.#timer !== undefined && this.#timerDelayMs <= delayMs) return;
    const due = Date.now() + delayMs;
    if (this.#timer !== undefined) {
      if (this.#timerAt <= due) return;
      clearTimeout(this.#timer);
    }
    this.#timerAt = due;
    this.#timerDelayMs = delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerDue = true;
      this.#pump();
    }, delayMs);
    // A waiting batch must not keep a process alive; flush() and shutdown() hold their own timer.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #timerAt = 0;
  #timerDelayMs = 0;
}
