/** Runs tasks with at most `max` of them pending at once; the others wait their turn in order. */
export class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #max: () => number;

  /** @param max The limit, or a function read each time a task starts or ends (call {@link wake} when it rises). */
  constructor(max: number | (() => number)) {
    this.#max = typeof max === "number" ? () => max : max;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active < this.#max()) this.#active++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      this.#active--;
      this.wake();
    }
  }

  /** Lets waiting tasks start, in order, while there is room. */
  wake(): void {
    while (this.#waiting.length > 0 && this.#active < this.#max()) {
      this.#active++;
      this.#waiting.shift()?.();
    }
  }
}

/** Runs `fn` over `items` with at most `limit` calls pending at once; results keep the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const limiter = new Limiter(Math.max(1, limit));
  return Promise.all(items.map((item) => limiter.run(() => fn(item))));
}
