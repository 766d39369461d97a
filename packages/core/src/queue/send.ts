// The queue's contract with what it works with: the options it is made with (the `send` of its batches, its spill
// directory), and what a send answers for an HTTP request.
import type { Spill } from "../spill/spill.js";
import { describeFailure, failureHint, hostOf, placeOf } from "../transport/failure-text.js";
import { type HttpFailure, type HttpResult, isRetryable } from "../transport/http.js";
import type { DeliveryMeterProvider, Fault, SendOutcome } from "./health.js";

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
  /** Most bytes per batch (as `offer` estimated them); a single larger item travels alone. */
  maxBatchBytes: number;
  /** Most items held (waiting or being sent); further items are dropped. */
  maxQueueItems: number;
  /** Most bytes held (as `offer` estimated them), waiting or being sent; further items are dropped. */
  maxQueueBytes: number;
  /** Batches being sent at the same time. */
  maxConcurrent: number;
  /**
   * Sends a batch with a signal that aborts when shutdown stops waiting for it (a rejection counts as a retryable
   * failure); calls `live(ms)` as a step begins that may take `ms`: the send is not lost before it and the grace end.
   */
  send: (batch: T[], signal: AbortSignal, live: (stepMs: number) => void) => Promise<SendOutcome<T>>;
  /** Start sending as soon as an item is queued (no waiting for a batch to fill). @defaultValue false */
  immediate?: boolean;
  /** Where the queue's figures are observed as metrics; nowhere by default. */
  meterProvider?: DeliveryMeterProvider;
  /** Origin the sends go to (`https://host:port`): what a flush learns of it is shared; unset for user code. */
  server?: string;
  /** Where what does not fit in the bounds, and what a shutdown leaves undelivered, go instead of being dropped. */
  spill?: Spill<T>;
  /**
   * One request's timeout: how long a recheck waits for the server to answer (see `flush`; unset, the deadline), and
   * the first step of a send (a mask before the request is bounded by it too): unsettled past it, the steps it
   * announced with `live` and `LOST_SEND_GRACE_MS`, a send is taken as lost and a flush sends its items again.
   */
  attemptTimeoutMs?: number;
}

/** Outcome of waiting for a flush. */
export interface FlushResult {
  /** Items that were queued when the flush began and are still neither delivered nor dropped. */
  pending: number;
  /** Set when the wait ended before its deadline, `waitedMs` after it began: no answer in one request's timeout. */
  unanswered?: { waitedMs: number; windowMs: number };
}

/** Whether the server answered (accepted items, or answered with a status); undefined when nothing was sent. */
export function answeredBy(outcome: SendOutcome<unknown>): boolean | undefined {
  const faults = [outcome.retry?.fault, ...(outcome.dropped ?? []).map((d) => d.fault)].filter((f) => f !== undefined);
  if (outcome.delivered === 0 && faults.length === 0) return undefined;
  return outcome.delivered > 0 || faults.some((f) => f.status !== undefined);
}

/** What went wrong on a request, for log lines and `health()`. */
function faultOf(failure: HttpFailure, method: string, url: string): Fault {
  const fault: Fault = { kind: failure.kind, description: describeFailure(failure, method, url) };
  const host = failure.kind === "invalid-url" ? hostOf(url) : placeOf(url).host;
  if (host !== undefined) fault.host = host;
  const hint = failureHint(failure, url, { delivery: true });
  if (hint) fault.hint = hint;
  if (failure.kind === "status") fault.status = failure.status;
  if (failure.kind === "network" && failure.code) fault.code = failure.code;
  return fault;
}

/**
 * What became of a batch sent in one request: delivered on success; kept for another attempt on a retryable failure
 * (network error, timeout, 408, 429, 5xx, a deadline or an abort); dropped on the others, as an auth failure (401,
 * 403, with what to check) or a rejection (other statuses, an invalid URL).
 */
export function outcomeOf<T>(result: HttpResult, items: T[], method: string): SendOutcome<T> {
  if (result.ok) return { delivered: items.length };
  const { failure } = result;
  const fault = faultOf(failure, method, result.url);
  if (isRetryable(failure) || failure.kind === "deadline" || failure.kind === "aborted") {
    const retryAfterMs = failure.kind === "status" ? failure.retryAfterMs : undefined;
    return { delivered: 0, retry: { items, fault, retryAfterMs } };
  }
  const status = failure.kind === "status" ? failure.status : undefined;
  const reason = status === 401 || status === 403 ? "auth" : status !== undefined ? "rejected" : "failed";
  const detail = fault.hint ? `${fault.description}. ${fault.hint}` : fault.description;
  return { delivered: 0, dropped: [{ count: items.length, reason, detail, fault }] };
}

/** Sends a batch as two requests, one half after the other (too large for one, or refused with 413), and adds up. */
export async function sendInHalves<T>(
  batch: T[],
  send: (part: T[]) => Promise<SendOutcome<T>>,
): Promise<SendOutcome<T>> {
  const half = Math.ceil(batch.length / 2);
  const first = await send(batch.slice(0, half));
  const second = await send(batch.slice(half));
  const retry = first.retry ?? second.retry;
  return {
    delivered: first.delivered + second.delivered,
    dropped: [...(first.dropped ?? []), ...(second.dropped ?? [])],
    retry: retry ? { ...retry, items: [...(first.retry?.items ?? []), ...(second.retry?.items ?? [])] } : undefined,
  };
}

/** Every item of a batch of `count` given up on as failed, with `detail` as the reason. */
export function failedOutcome<T>(count: number, detail: string): SendOutcome<T> {
  return { delivered: 0, dropped: [{ count, reason: "failed", detail }] };
}

/** What becomes of a single item that does not fit in one request even alone: dropped and counted as too large. */
export function tooLargeOutcome<T>(item: string, why: string, option: string): SendOutcome<T> {
  const detail = `${item} does not fit in one request (${why}); raise ${option} or send smaller values`;
  return { delivered: 0, dropped: [{ count: 1, reason: "tooLarge", detail }] };
}
