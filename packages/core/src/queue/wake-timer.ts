/**
 * One unref'd timer that calls `wake` at the earliest time it was asked for: asking for a later time while an earlier
 * one is set changes nothing. Nothing is scheduled until {@link WakeTimer.arm} is called.
 */
export class WakeTimer {
  readonly #wake: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = 0;
  #delayMs = 0;

  constructor(wake: () => void) {
    this.#wake = wake;
  }

  /** Makes sure `wake` runs within `delayMs` (an earlier time already set is kept). */
  arm(delayMs: number): void {
    // A timer armed earlier with a delay no longer than this one is due first: no clock read (every push comes here).
    if (this.#timer !== undefined && this.#delayMs <= delayMs) return;
    const due = Date.now() + delayMs;
    if (this.#timer !== undefined) {
      if (this.#at <= due) return;
      clearTimeout(this.#timer);
    }
    this.#at = due;
    this.#delayMs = delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#wake();
    }, delayMs);
    // A waiting batch must not keep a process alive; flushes hold their own timer.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Cancels the timer. */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
