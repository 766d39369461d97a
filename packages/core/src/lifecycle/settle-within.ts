/** How a call ended for its caller: its value, its error, or the caller stopped waiting (time up, or aborted). */
export type Settled<T> =
  | { kind: "value"; value: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  | { kind: "aborted"; reason: unknown };

/** Options of {@link settleWithin}. */
export interface SettleWithinOptions {
  /** Longest wait, in milliseconds; no limit when undefined. */
  timeoutMs?: number | undefined;
  /** Stops the wait when it aborts (or has aborted already, in which case `fn` is not called). */
  signal?: AbortSignal | undefined;
}

/**
 * Calls `fn` with a signal of its own and waits for its result to settle, at most `timeoutMs` and while `signal` is
 * not aborted. Never rejects: a throw or rejection is the `error` outcome. When the wait stops first, `fn`'s signal
 * aborts (`TimeoutError`, or the caller's reason) and the call's own outcome, a rejection included, is ignored.
 */
export async function settleWithin<T>(
  fn: (signal: AbortSignal) => T | PromiseLike<T>,
  { timeoutMs, signal }: SettleWithinOptions = {},
): Promise<Settled<Awaited<T>>> {
  if (signal?.aborted) return { kind: "aborted", reason: signal.reason };
  const own = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Settled<never>>((resolve) => {
    if (timeoutMs !== undefined) timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
    if (signal) {
      onAbort = () => resolve({ kind: "aborted", reason: signal.reason });
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    let pending: Promise<Settled<Awaited<T>>>;
    try {
      pending = Promise.resolve(fn(own.signal)).then(
        (value) => ({ kind: "value", value }),
        (error: unknown) => ({ kind: "error", error }),
      );
    } catch (error) {
      return { kind: "error", error };
    }
    const outcome = await Promise.race([pending, stopped]);
    if (outcome.kind === "timeout") own.abort(new DOMException(`no result within ${timeoutMs} ms`, "TimeoutError"));
    else if (outcome.kind === "aborted") own.abort(outcome.reason);
    return outcome;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
