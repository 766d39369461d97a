import { getGlobalLogger } from "@svc/tracing";

const SUMMARY_EVERY_MS = 10_000;

/**
 * Error lines that can repeat for every span: the first of each kind is logged at once, repeats are
 * counted and summarised at most every ten seconds and whenever {@link RepeatLog.report} is called.
 */
export class RepeatLog {
  readonly #unreported = new Map<string, number>();
  readonly #lastLogged = new Map<string, number>();

  error(kind: string, message: string): void {
    const unreported = this.#unreported.get(kind);
    if (unreported === undefined) {
      getGlobalLogger().error(message);
      this.#unreported.set(kind, 0);
      this.#lastLogged.set(kind, Date.now());
      return;
    }
    this.#unreported.set(kind, unreported + 1);
    if (Date.now() - (this.#lastLogged.get(kind) ?? 0) >= SUMMARY_EVERY_MS) this.#summarise(kind);
  }

  /** Logs the count of repeats not yet reported. */
  report(): void {
    for (const kind of this.#unreported.keys()) this.#summarise(kind);
  }

  #summarise(kind: string): void {
    const count = this.#unreported.get(kind) ?? 0;
    if (count === 0) return;
    getGlobalLogger().error(`${kind}: happened ${count} more time(s) since the last message`);
    this.#unreported.set(kind, 0);
    this.#lastLogged.set(kind, Date.now());
  }
}
