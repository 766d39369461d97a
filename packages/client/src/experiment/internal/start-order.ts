/** One item's place in the start order: wait for the items before it, then let the next one go. */
export interface StartTurn {
  /** Resolves once every earlier item has started (or ended without starting). */
  wait(): Promise<void>;
  /** Lets the next item start; safe to call more than once. */
  release(): void;
}

/**
 * Keeps the items of a run starting in data order. An item does some asynchronous work before its task starts (its id
 * is a hash of its input), which takes longer for a larger input; without a turn, a small item given its slot after
 * a large one would start first.
 */
export class StartOrder {
  #last: Promise<void> = Promise.resolve();

  /** The turn after all turns handed out so far. */
  next(): StartTurn {
    const previous = this.#last;
    let release: () => void = () => undefined;
    this.#last = new Promise<void>((resolve) => {
      release = resolve;
    });
    return { wait: () => previous, release };
  }
}
