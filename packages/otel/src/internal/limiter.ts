/** Runs tasks with at most `max` of them pending at once; the others wait their turn in order. */
export class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active < this.max) this.#active++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next task, or give it back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
