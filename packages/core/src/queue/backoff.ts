// When a queue sends next: the backoff after failed attempts, and the one timer that wakes the queue.
import { retryDelayMs } from "../transport/retry.js";

/** Longest wait between two attempts unless `Retry-After` asks for more: how long a recovery may go unseen. */
export const MAX_QUEUE_RETRY_DELAY_MS = 10_000;

/**
 * Exponential backoff with jitter, or the server's `Retry-After`. Batches in flight together fail together: the wait
 * grows once per round, not per batch.
 */
export class Backoff {
  #pausedUntil = 0;
  #failures = 0;

  /** Whether the last round of attempts failed (and none has succeeded since). */
  get failing(): boolean {
    return this.#failures > 0;
  }

  remainingMs(now: number = Date.now()): number {
    return Math.max(0, this.#pausedUntil - now);
  }

  /** An attempt failed: returns the wait before the next one, in milliseconds. */
  failed(retryAfterMs: number | undefined, now: number = Date.now()): number {
    if (now >= this.#pausedUntil) {
      this.#pausedUntil = now + retryDelayMs(this.#failures, retryAfterMs, { maxMs: MAX_QUEUE_RETRY_DELAY_MS });
      this.#failures += 1;
    } else if (retryAfterMs !== undefined) {
      this.#pausedUntil = Math.max(this.#pausedUntil, now + retryAfterMs);
    }
    return this.#pausedUntil - now;
  }

  /** Lets the next attempt start now, without waiting out the rest of the wait (the wait keeps growing). */
  probeNow(): void {
    this.#pausedUntil = 0;
  }

  /** An attempt succeeded entirely: the next failure starts from the first step again. */
  succeeded(): void {
    this.#failures = 0;
  }
}

/** One unref'd timer that calls `wake` at the earliest time it was asked for. */
export class WakeTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = 0;
  #delayMs = 0;

  constructor(private readonly wake: () => void) {}

  /** Makes sure `wake` runs within `delayMs` (an earlier time already set is kept). */
  arm(delayMs: number): void {
    // A timer armed with a delay no longer than this one is due first: no clock read (every offer comes here).
    if (this.#timer !== undefined && this.#delayMs <= delayMs) return;
    const due = Date.now() + delayMs;
    if (this.#timer !== undefined && this.#at <= due) return;
    clearTimeout(this.#timer);
    this.#at = due;
    this.#delayMs = delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.wake();
    }, delayMs);
    // A waiting batch must not keep a process alive; flushes hold their own timer.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
