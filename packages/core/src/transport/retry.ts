/** The one retry policy of the SDK: what is worth another attempt, and how long to wait before it. */

/** Most retries a call makes, whatever a caller asks for. */
export const MAX_RETRIES_CAP = 10;
/** First backoff step; doubles with each attempt. */
export const RETRY_BASE_DELAY_MS = 1000;
/** Longest computed wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 30_000;
/** Longest wait a server's `Retry-After` can ask for; longer answers are capped. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Statuses worth another attempt: request timeout, rate limit and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** Delay a `Retry-After` value (seconds, or an HTTP date) asks for, capped; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(date - Date.now(), 0), MAX_RETRY_AFTER_MS);
}

/** Wait before retry `attempt + 1`: `Retry-After` when given, else `baseMs * 2^attempt` to `maxMs`, ±25 % jitter. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs?: number,
  { baseMs = RETRY_BASE_DELAY_MS, maxMs = MAX_RETRY_DELAY_MS, random = Math.random } = {},
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const exponential = Math.min(baseMs * 2 ** Math.min(attempt, 30), maxMs);
  return Math.min(Math.round(exponential * (0.75 + random() * 0.5)), maxMs);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
