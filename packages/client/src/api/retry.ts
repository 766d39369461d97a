/** Most retries a call makes, whatever `maxRetries` asks for. */
export const MAX_RETRIES_CAP = 10;
/** Longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 60_000;
/** First backoff step; doubles with each attempt. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 1000;

/** Statuses worth another attempt: request timeout, conflict, rate limit and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Delay asked for by a `Retry-After` header (seconds or HTTP date), capped; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(Number(value) * 1000, MAX_RETRY_DELAY_MS);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(date - now, 0), MAX_RETRY_DELAY_MS);
}

/**
 * Wait before retry number `attempt + 1`: the server's `Retry-After` when given, else exponential backoff
 * (`baseMs * 2^attempt`) with ±25 % jitter, never above {@link MAX_RETRY_DELAY_MS}.
 */
export function retryDelayMs(
  headers: Headers | undefined,
  attempt: number,
  baseMs: number = DEFAULT_RETRY_BASE_DELAY_MS,
  random: () => number = Math.random,
): number {
  const asked = retryAfterMs(headers);
  if (asked !== undefined) return asked;
  const exponential = Math.min(baseMs * 2 ** attempt, MAX_RETRY_DELAY_MS);
  return Math.min(Math.round(exponential * (0.75 + random() * 0.5)), MAX_RETRY_DELAY_MS);
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
