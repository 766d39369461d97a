import { getGlobalLogger, loggerGeneration } from "./logger.js";

/** Default shortest time between two summaries of one kind, in milliseconds. */
export const DEFAULT_REPEAT_SUMMARY_INTERVAL_MS = 10_000;
/** Default number of kinds one {@link RepeatLog} keeps track of. */
export const DEFAULT_REPEAT_MAX_KINDS = 1_000;

/** Options of {@link RepeatLog}. */
export interface RepeatLogOptions {
  /** Shortest time between two summary lines of one kind, in milliseconds. @defaultValue 10000 */
  summaryIntervalMs?: number;
  /**
   * Most kinds tracked at once; a line of a further kind is logged every time, so memory stays bounded.
   * @defaultValue 1000
   */
  maxKinds?: number;
}

type Level = "warn" | "error";

// Every RepeatLog of every svc package (and of every copy of this module), so that one flush can report them all.
const REGISTRY = Symbol.for("svc.repeat-logs");

function registry(): Set<WeakRef<RepeatLog>> {
  const holder = globalThis as unknown as Record<symbol, Set<WeakRef<RepeatLog>> | undefined>;
  holder[REGISTRY] ??= new Set();
  return holder[REGISTRY];
}

/**
 * Logs the summary lines of every {@link RepeatLog} in the process (see {@link RepeatLog.report}). The span
 * processor calls it on `forceFlush()` and `shutdown()`.
 */
export function reportRepeatedLogs(): void {
  for (const ref of registry()) {
    const log = ref.deref();
    if (log === undefined) registry().delete(ref);
    else log.report();
  }
}

interface KindState {
  level: Level;
  /** Repeats counted but not yet reported. */
  unreported: number;
  /** When a line of this kind (first line or summary) was last logged, from `Date.now()`. */
  loggedAt: number;
}

/**
 * Log lines that bad input can repeat many times, for integrations: the first line of each kind is logged at
 * once through the global logger; repeats are counted and logged as one summary line (`<kind>: happened N more
 * time(s) since the last message`) on the first repeat at least `summaryIntervalMs` after the last line of that
 * kind, and on {@link RepeatLog.report}. A kind that stays quiet for `summaryIntervalMs` logs its next line in
 * full again. Uses no timers.
 *
 * The kind names one cause and stays the same for every occurrence (`"ScoreManager: score dropped: empty
 * name"`); the message may carry detail. Reconfiguring the global logger starts every RepeatLog afresh.
 * @example
 * ```ts
 * const repeats = new RepeatLog();
 * repeats.warn("MyIntegration: hook failed", `MyIntegration: hook failed for run ${runId}: ${error}`);
 * // on flush or shutdown:
 * repeats.report();
 * ```
 */
export class RepeatLog {
  readonly #kinds = new Map<string, KindState>();
  readonly #intervalMs: number;
  readonly #maxKinds: number;
  #generation = loggerGeneration();
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: RepeatLogOptions = {}) {
    this.#intervalMs = options.summaryIntervalMs ?? DEFAULT_REPEAT_SUMMARY_INTERVAL_MS;
    this.#maxKinds = options.maxKinds ?? DEFAULT_REPEAT_MAX_KINDS;
    registry().add(new WeakRef(this));
  }

  /** Logs `message` at error level if it is the first of its kind; otherwise counts it. */
  error(kind: string, message: string): void {
    this.#log("error", kind, message);
  }

  /** Logs `message` at warn level if it is the first of its kind; otherwise counts it. */
  warn(kind: string, message: string): void {
    this.#log("warn", kind, message);
  }

  /** Logs one summary line for each kind with repeats not yet reported. Call it on flush and shutdown. */
  report(): void {
    this.#syncWithLogger();
    const now = Date.now();
    for (const [kind, state] of this.#kinds) this.#summarise(kind, state, now);
  }

  #log(level: Level, kind: string, message: string): void {
    this.#syncWithLogger();
    const now = Date.now();
    const state = this.#kinds.get(kind);
    if (state === undefined || (state.unreported === 0 && now - state.loggedAt >= this.#intervalMs)) {
      if (state !== undefined) this.#kinds.delete(kind);
      if (this.#hasRoom(now)) this.#kinds.set(kind, { level, unreported: 0, loggedAt: now });
      getGlobalLogger()[level](message);
      return;
    }
    state.level = level;
    state.unreported += 1;
    if (now - state.loggedAt >= this.#intervalMs) this.#summarise(kind, state, now);
  }

  #summarise(kind: string, state: KindState, now: number): void {
    if (state.unreported === 0) return;
    getGlobalLogger()[state.level](`${kind}: happened ${state.unreported} more time(s) since the last message`);
    state.unreported = 0;
    state.loggedAt = now;
  }

  /** Whether one more kind fits; when full, forgets kinds that would log in full anyway, at most once per interval. */
  #hasRoom(now: number): boolean {
    if (this.#kinds.size < this.#maxKinds) return true;
    if (now - this.#sweptAt < this.#intervalMs) return false;
    this.#sweptAt = now;
    for (const [kind, state] of this.#kinds) {
      if (state.unreported === 0 && now - state.loggedAt >= this.#intervalMs) this.#kinds.delete(kind);
    }
    return this.#kinds.size < this.#maxKinds;
  }

  #syncWithLogger(): void {
    const generation = loggerGeneration();
    if (generation === this.#generation) return;
    this.#generation = generation;
    this.#kinds.clear();
    this.#sweptAt = Number.NEGATIVE_INFINITY;
  }
}
