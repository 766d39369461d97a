import { getGlobalLogger } from "@svc/tracing";

const REPORT_EVERY_MS = 10_000;

/**
 * Counts lost spans and reports them at error level: the first loss at once, later ones as a
 * count at most every ten seconds (and whenever {@link DropCounter.report} is called).
 */
export class DropCounter {
  #total = 0;
  #unreported = 0;
  #lastReport = 0;

  constructor(private readonly what: string) {}

  /** Spans lost so far. */
  get total(): number {
    return this.#total;
  }

  add(count: number, detail: string): void {
    this.#total += count;
    if (this.#lastReport === 0) {
      this.#lastReport = Date.now();
      getGlobalLogger().error(`${this.what}: ${count} span(s) dropped: ${detail}`);
      return;
    }
    this.#unreported += count;
    if (Date.now() - this.#lastReport >= REPORT_EVERY_MS) this.report();
  }

  /** Logs the losses not yet reported, if any. */
  report(): void {
    if (this.#unreported === 0) return;
    getGlobalLogger().error(
      `${this.what}: ${this.#unreported} more span(s) dropped (${this.#total} in total); see the first message for the cause`,
    );
    this.#unreported = 0;
    this.#lastReport = Date.now();
  }
}
