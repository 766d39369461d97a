import { describeError, RepeatLog } from "@svc/core";
import type { ExperimentItemStatus, ExperimentProgress, ProgressStream } from "../types.js";

/** Shortest time between two drawings of the line, in milliseconds (the last one is always drawn). */
const REDRAW_EVERY_MS = 100;
/** How often the line is drawn while no item ends, so that the elapsed time moves. */
const TICK_EVERY_MS = 1000;
const BAR_WIDTH = 20;
const ERASE_TO_END = "\x1b[K";

/** A run's progress: counts items, tells `onProgress` and, on a terminal, keeps one line up to date in place. */
export class RunProgress {
  readonly #counts: ExperimentProgress;
  readonly #startedAt = Date.now();
  readonly #repeats = new RepeatLog();
  readonly #line: { stream: ProgressStream; label: string } | undefined;
  #drawnAt = Number.NEGATIVE_INFINITY;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    total: number,
    runName: string,
    private readonly onProgress: ((progress: ExperimentProgress) => void) | undefined,
    stream: ProgressStream | undefined,
  ) {
    this.#counts = { total, done: 0, ok: 0, failed: 0, timedOut: 0, skipped: 0, running: 0, retries: 0, elapsedMs: 0 };
    if (stream?.isTTY !== true) return;
    this.#line = { stream, label: `experiment "${runName}"` };
    this.#draw();
    this.#ticker = setInterval(() => this.#draw(), TICK_EVERY_MS);
    (this.#ticker as { unref?: () => void }).unref?.();
  }

  /** Counts an item whose task starts, or an attempt after an item's first; redraws the line (at most every 100 ms). */
  count(what: "running" | "retries"): void {
    this.#counts[what]++;
    this.#drawSoon();
  }

  /** Counts an item that ended (`started` when its task had started), tells `onProgress`, and redraws the line. */
  itemEnded(status: ExperimentItemStatus, started: boolean): void {
    const counts = this.#counts;
    counts.done++;
    if (started) counts.running = Math.max(0, counts.running - 1);
    if (status === "ok") counts.ok++;
    else if (status === "failed") counts.failed++;
    else if (status === "timeout") counts.timedOut++;
    else counts.skipped++;
    counts.elapsedMs = Date.now() - this.#startedAt;
    if (this.onProgress) {
      try {
        this.onProgress({ ...counts });
      } catch (error) {
        const kind = "ExperimentManager: onProgress threw; the run goes on";
        this.#repeats.warn(kind, `${kind}: ${describeError(error)}`);
      }
    }
    this.#drawSoon();
  }

  /** Draws the line a last time and ends it with a newline; logs the counts of repeated warnings. */
  finish(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
    if (this.#line) {
      this.#draw();
      this.#write("\n");
    }
    this.#repeats.report();
  }

  #drawSoon(): void {
    if (Date.now() - this.#drawnAt >= REDRAW_EVERY_MS) this.#draw();
  }

  #draw(): void {
    if (!this.#line) return;
    this.#drawnAt = Date.now();
    const text = progressLine(this.#line.label, { ...this.#counts, elapsedMs: Date.now() - this.#startedAt });
    const width = this.#line.stream.columns;
    // One column short of the width: a line that fills it wraps on some terminals, and `\r` then redraws below.
    const fitted = width !== undefined && width > 1 && text.length >= width ? `${text.slice(0, width - 2)}…` : text;
    this.#write(`\r${fitted}${ERASE_TO_END}`);
  }

  #write(text: string): void {
    try {
      this.#line?.stream.write(text);
    } catch (error) {
      const kind = "ExperimentManager: the progress line could not be written";
      this.#repeats.warn(kind, `${kind}: ${describeError(error)}`);
    }
  }
}

/**
 * The text of the progress line:
 * `experiment "run" [#####...] 57/200  running 8  retries 4  ok 52  failed 3  timeout 2  skipped 0  12.3 s`.
 */
export function progressLine(label: string, p: ExperimentProgress): string {
  const filled = p.total === 0 ? BAR_WIDTH : Math.round((p.done / p.total) * BAR_WIDTH);
  const bar = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
  const underway = `running ${p.running}  retries ${p.retries}`;
  const counts = `ok ${p.ok}  failed ${p.failed}  timeout ${p.timedOut}  skipped ${p.skipped}`;
  return `${label} ${bar} ${p.done}/${p.total}  ${underway}  ${counts}  ${(p.elapsedMs / 1000).toFixed(1)} s`;
}
