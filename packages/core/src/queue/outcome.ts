import { describeFailure, failureHint, hostOf, placeOf } from "../transport/failure-text.js";
import { type HttpFailure, type HttpResult, isRetryable } from "../transport/http.js";
import type { DropReason, Fault } from "./delivery-log.js";

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

/**
 * Whether the server answered the attempt of this outcome (accepted items, or answered with a status); undefined
 * when the outcome tells nothing of it (nothing was sent).
 */
export function answeredBy(outcome: SendOutcome<unknown>): boolean | undefined {
  const faults = [outcome.retry?.fault, ...(outcome.dropped ?? []).map((d) => d.fault)].filter((f) => f !== undefined);
  if (outcome.delivered === 0 && faults.length === 0) return undefined;
  return outcome.delivered > 0 || faults.some((f) => f.status !== undefined);
}

/** What went wrong on a request, for log lines and `health()`. */
export function faultOf(failure: HttpFailure, method: string, url: string): Fault {
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
 * What became of a batch sent in one request: delivered on success; kept for another attempt on a retryable
 * failure (network error, timeout, 408, 429, 5xx, a deadline or an abort); dropped on the others, as an auth
 * failure (401, 403, with what to check) or a rejection (other statuses, an invalid URL).
 */
export function outcomeOf<T>(result: HttpResult, items: T[], method: string): SendOutcome<T> {
  if (result.ok) return { delivered: items.length };
  const { failure } = result;
  const fault = faultOf(failure, method, result.url);
  if (isRetryable(failure) || failure.kind === "deadline" || failure.kind === "aborted")
    return {
      delivered: 0,
      retry: { items, fault, retryAfterMs: failure.kind === "status" ? failure.retryAfterMs : undefined },
    };
  if (failure.kind === "status" && (failure.status === 401 || failure.status === 403))
    return {
      delivered: 0,
      dropped: [
        {
          count: items.length,
          reason: "auth",
          detail: `${fault.description}. ${fault.hint}`,
          fault,
        },
      ],
    };
  return {
    delivered: 0,
    dropped: [
      {
        count: items.length,
        reason: failure.kind === "status" ? "rejected" : "failed",
        detail: fault.hint ? `${fault.description}. ${fault.hint}` : fault.description,
        fault,
      },
    ],
  };
}

/**
 * Sends a batch as two requests, the first half then the second (a batch too large for one request, or refused
 * with 413), and adds up what became of both.
 */
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

/** What becomes of a single item that does not fit in one request even alone: dropped and counted as too large. */
export function tooLargeOutcome<T>(item: string, why: string, option: string): SendOutcome<T> {
  return {
    delivered: 0,
    dropped: [
      {
        count: 1,
        reason: "tooLarge",
        detail: `${item} does not fit in one request (${why}); raise ${option} or send smaller values`,
      },
    ],
  };
}
