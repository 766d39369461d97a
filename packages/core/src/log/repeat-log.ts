import { shared } from "../registry.js";
import { getGlobalLogger, loggerGeneration, setBeforeReconfigure } from "./logger.js";

/** Shortest time between two summary lines of one kind. */
const SUMMARY_INTERVAL_MS = 10_000;
/** Most kinds tracked at once; a line of a further kind is logged every time, so memory stays bounded. */
const MAX_KINDS = 1_000;

type Level = "debug" | "info" | "warn" | "error";
const TIMES = "time(s)";

interface KindState {
  level: Level;
  /** What is counted, for the summary line ("time(s)", "spans"). */
  unit: string;
  unreported: number;
  /** Counted since the first line of this kind. */
  total: number;
  /** When a line of this kind (first line or summary) was last logged. */
  loggedAt: number;
  /** Lines still to be logged in full before repeats are counted. */
  fullLeft: number;
}

/** Options of one {@link RepeatLog} line. */
export interface RepeatLineOptions {
  /** How many occurrences this line stands for (items dropped, for example). @defaultValue 1 */
  count?: number;
  /** What the count counts, in the summary line. @defaultValue "time(s)" */
  unit?: string;
  /** Lines of this kind logged in full before repeats are counted. @defaultValue 1 */
  inFull?: number;
}

// The RepeatLogs of every copy of the core holding counts not yet logged, so that one `exit` listener logs them all.
const held = shared("held-repeats", () => ({ logs: new Set<{ report(): void }>(), installed: false }));

function reportHeldRepeats(): void {
  for (const log of [...held().logs]) {
    try {
      log.report();
    } catch {
      // A log that cannot report leaves the others to report.
    }
  }
}

setBeforeReconfigure(reportHeldRepeats);

/** Makes sure held counts are logged when the process exits, before other `exit` listeners. */
function holdUntilExit(log: { report(): void }): void {
  const state = held();
  state.logs.add(log);
  if (state.installed) return;
  state.installed = true;
  const proc = (globalThis as { process?: { prependListener?: (event: "exit", fn: () => void) => unknown } }).process;
  proc?.prependListener?.("exit", reportHeldRepeats);
}

/**
 * Log lines that can repeat many times: the first (or first `inFull`) of each kind is logged, repeats are counted and
 * summed up in one line (`<kind>: happened N more time(s) since the last message`, or `<kind>: N more spans since the
 * last message (T in total)`) once per 10 s, on {@link RepeatLog.report} and at exit; a kind quiet for
 * an interval logs in full again. The kind names one cause; the message may carry detail.
 */
export class RepeatLog {
  readonly #kinds = new Map<string, KindState>();
  #generation = loggerGeneration();
  #sweptAt = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Logs `message` at error level if it is the first of its kind; otherwise counts it. */
  error(kind: string, message: string, options?: RepeatLineOptions): void {
    this.#log("error", kind, message, options);
  }

  /** Logs `message` at warn level if it is the first of its kind; otherwise counts it. */
  warn(kind: string, message: string, options?: RepeatLineOptions): void {
    this.#log("warn", kind, message, options);
  }

  /** Logs `message` at info level if it is the first of its kind; otherwise counts it. */
  info(kind: string, message: string, options?: RepeatLineOptions): void {
    this.#log("info", kind, message, options);
  }

  /** Logs `message` at debug level if it is the first of its kind; otherwise counts it. */
  debug(kind: string, message: string, options?: RepeatLineOptions): void {
    this.#log("debug", kind, message, options);
  }

  /**
   * Logs a summary line for each kind with repeats not yet reported (on shutdown); with `dueOnly`, only for kinds
   * whose last line is an interval old (on flush, so a flush per request adds no line per request).
   */
  report(options: { dueOnly?: boolean } = {}): void {
    this.#syncWithLogger();
    if (options.dueOnly) {
      this.#reportDue();
      return;
    }
    const now = Date.now();
    for (const [kind, state] of this.#kinds) this.#summarise(kind, state, now);
    held().logs.delete(this);
  }

  #log(level: Level, kind: string, message: string, options: RepeatLineOptions | undefined): void {
    this.#syncWithLogger();
    const count = options?.count ?? 1;
    const now = Date.now();
    const state = this.#kinds.get(kind);
    if (state === undefined || (state.unreported === 0 && now - state.loggedAt >= SUMMARY_INTERVAL_MS)) {
      if (state !== undefined) this.#kinds.delete(kind);
      const fullLeft = Math.max(1, options?.inFull ?? 1) - 1;
      const unit = options?.unit ?? TIMES;
      if (this.#hasRoom(now))
        this.#kinds.set(kind, { level, unit, unreported: 0, total: count, loggedAt: now, fullLeft });
      getGlobalLogger()[level](message);
      return;
    }
    if (state.fullLeft > 0 && state.unreported === 0) {
      state.fullLeft -= 1;
      state.total += count;
      state.loggedAt = now;
      getGlobalLogger()[level](message);
      return;
    }
    state.level = level;
    if (state.unreported === 0) holdUntilExit(this);
    state.unreported += count;
    state.total += count;
    if (now - state.loggedAt >= SUMMARY_INTERVAL_MS) this.#summarise(kind, state, now);
    else this.#armTimer(state.loggedAt + SUMMARY_INTERVAL_MS - now);
  }

  #summarise(kind: string, state: KindState, now: number): void {
    if (state.unreported === 0) return;
    const line =
      state.unit === TIMES
        ? `${kind}: happened ${state.unreported} more time(s) since the last message`
        : `${kind}: ${state.unreported} more ${state.unit} since the last message (${state.total} in total)`;
    getGlobalLogger()[state.level](line);
    state.unreported = 0;
    state.loggedAt = now;
  }

  #armTimer(delayMs: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#reportDue();
      },
      Math.max(0, delayMs),
    );
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Summarises the kinds whose interval has passed; arms the timer again for the others. */
  #reportDue(): void {
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [kind, state] of this.#kinds) {
      if (state.unreported === 0) continue;
      const due = state.loggedAt + SUMMARY_INTERVAL_MS;
      if (due <= now) this.#summarise(kind, state, now);
      else next = Math.min(next, due);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#armTimer(next - now);
    else held().logs.delete(this);
  }

  /** Whether one more kind fits; when full, forgets kinds that would log in full anyway, at most once per interval. */
  #hasRoom(now: number): boolean {
    if (this.#kinds.size < MAX_KINDS) return true;
    if (now - this.#sweptAt < SUMMARY_INTERVAL_MS) return false;
    this.#sweptAt = now;
    for (const [kind, state] of this.#kinds) {
      if (state.unreported === 0 && now - state.loggedAt >= SUMMARY_INTERVAL_MS) this.#kinds.delete(kind);
    }
    return this.#kinds.size < MAX_KINDS;
  }

  /** After the global logger was reconfigured (by any copy of the core): logs what is still held, starts afresh. */
  #syncWithLogger(): void {
    const generation = loggerGeneration();
    if (generation === this.#generation) return;
    this.#generation = generation;
    const now = Date.now();
    for (const [kind, state] of this.#kinds) this.#summarise(kind, state, now);
    this.#kinds.clear();
    this.#sweptAt = Number.NEGATIVE_INFINITY;
  }
}
