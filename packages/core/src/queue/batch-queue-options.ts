import type { DeliveryMeterProvider } from "./delivery-metrics.js";
import type { SendOutcome } from "./outcome.js";
import type { QueueSpill } from "./spill-gate.js";

/** Settings of a `BatchQueue`. */
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
  /** Most bytes held (by `sizeOf`), waiting or being sent; further items are dropped. */
  maxQueueBytes: number;
  /** Batches being sent at the same time. */
  maxConcurrent: number;
  /** Estimated size of an item in bytes. */
  sizeOf: (item: T) => number;
  /**
   * Sends a batch with a signal of its own, which aborts when shutdown stops waiting for it; must not reject (a
   * rejection counts as a failure that is retried). Calls `live(ms)` as a step begins that may take `ms` (a request
   * with its timeout): the send is not taken as lost before that step has outlived its time and the grace.
   */
  send: (batch: T[], signal: AbortSignal, live: (stepMs: number) => void) => Promise<SendOutcome<T>>;
  /** Start sending as soon as an item is queued (no waiting for a batch to fill). @defaultValue false */
  immediate?: boolean;
  /**
   * A send still unsettled this long after it started, and past the steps it announced with `live` (each with its
   * time and `LOST_SEND_GRACE_MS`), is taken as lost: a runtime that cancels what an ended request left running
   * (Cloudflare Workers) never settles it. A flush then queues its items again and sends them. The same rule holds
   * in every runtime; where timers run, a send settles within its own time and is never taken as lost.
   * @defaultValue never
   */
  lostAfterMs?: number;
  /** Where the queue's figures are observed as metrics; nowhere by default. */
  meterProvider?: DeliveryMeterProvider;
  /**
   * Origin of the server the sends go to (`https://host:port`): what a flush learns of it (that it does not answer)
   * is shared with every queue that sends there. Unset when the sends go through user code.
   */
  server?: string;
  /**
   * A spill directory: a batch that does not fit in the bounds, and what a shutdown leaves undelivered, are written
   * to it instead of being dropped. None by default.
   */
  spill?: QueueSpill<T>;
  /**
   * Time one request may take (its timeout): how long a shutdown without an answer of the server yet, or a flush to
   * a server a flush gave up on, waits for an answer before it stops waiting. Unset: until the deadline.
   */
  attemptTimeoutMs?: number;
}

/** Outcome of waiting for a flush. */
export interface FlushResult {
  /** Items that were queued when the flush began and are still neither delivered nor dropped. */
  pending: number;
  /**
   * Set when the wait ended before its deadline, `waitedMs` after it began, because the server answered no request
   * within one request's timeout (`windowMs`), and none could be answered within it (a shutdown, or a flush after an
   * earlier flush gave up on the server).
   */
  unanswered?: { waitedMs: number; windowMs: number };
}
