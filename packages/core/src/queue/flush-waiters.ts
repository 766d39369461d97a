/** A flush waiting for the items queued before it: those up to `target` (by sequence number). */
interface Waiter {
  target: number;
  remaining: number;
  resolve: () => void;
  /** Ends the wait now if its early check says so (set while the wait has an early end). */
  checkEarly?: () => void;
}

/**
 * The flushes waiting on a queue: each waits until every item queued before it was delivered or dropped, or until its
 * deadline, and learns how many of them were still pending then.
 */
export class FlushWaiters {
  readonly #waiters = new Set<Waiter>();

  /** Flushes waiting now. */
  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Waits until the `remaining` items with a sequence number up to `target` are settled, or until `deadline`
   * (epoch ms); resolves with how many were still pending. With `early`, the wait ends at `early.at` already unless
   * `early.extend()` then says to go on (`true`: until `deadline`; a time: to ask again then). Counted in
   * {@link size} from the call on.
   */
  async wait(
    target: number,
    remaining: number,
    deadline: number,
    early?: { at: number; extend: () => boolean | number },
  ): Promise<number> {
    if (remaining <= 0) return 0;
    const waiter: Waiter = { target, remaining, resolve: () => {} };
    const done = new Promise<void>((resolve) => {
      waiter.resolve = resolve;
    });
    this.#waiters.add(waiter);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // Held (not unref'd): a caller awaiting a flush keeps the process alive until it resolves, at the latest.
      const timeout = new Promise<void>((resolve) => {
        const until = (at: number, then: () => void) => {
          timer = setTimeout(then, Math.max(0, at - Date.now()));
        };
        if (early && early.at < deadline) {
          const check = (): void => {
            const next = early.extend();
            clearTimeout(timer);
            if (next !== false && next !== true && next < deadline) until(next, check);
            else if (next === false) resolve();
            else until(deadline, resolve);
          };
          waiter.checkEarly = check;
          until(early.at, check);
        } else until(deadline, resolve);
      });
      await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
      this.#waiters.delete(waiter);
    }
    return Math.max(0, waiter.remaining);
  }

  /**
   * Nothing can be answered before the early ends of the waits: each wait that has one asks its check now, and
   * ends unless the check says to go on.
   */
  endEarly(): void {
    for (const waiter of this.#waiters) waiter.checkEarly?.();
  }

  /** These items (by sequence number) were delivered or dropped. */
  settle(items: readonly { readonly seq: number }[]): void {
    if (this.#waiters.size === 0 || items.length === 0) return;
    for (const waiter of this.#waiters) {
      for (const { seq } of items) if (seq <= waiter.target) waiter.remaining--;
      if (waiter.remaining <= 0) waiter.resolve();
    }
  }
}
