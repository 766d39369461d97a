import { diag } from "@opentelemetry/api";
import { reportUnshared, shared } from "../registry.js";
import { redactSecrets } from "./secrets.js";

/** Log levels of the SDK logger, from most to least verbose. */
export enum LogLevel {
  DEBUG = 0,
  INFO = 1,
  WARN = 2,
  ERROR = 3,
  NONE = 4,
}

/** The SDK's logger: one line per event, prefixed with `[Svc SDK]`. */
export interface SvcLogger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/** Where log lines go. Defaults to `console`. */
export type LogSink = Pick<Console, "debug" | "info" | "warn" | "error">;

type Env = Record<string, string | undefined>;
type Method = "debug" | "info" | "warn" | "error";

const PREFIX = "[Svc SDK]";
const LEVEL_OF: Record<Method, LogLevel> = {
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
};

/** Shared by every copy of the SDK in a process, so that a level set through any package applies to all of them. */
interface LoggerState {
  level: LogLevel;
  sink: LogSink;
  /** Bumped on every reconfiguration, so repeat suppression can start afresh. */
  generation: number;
  /** Whether SDK lines are also written to OpenTelemetry's `diag` logger when one is set. */
  toDiag: boolean;
}

const state = shared<LoggerState>(
  "logger",
  () => ({ level: resolveLogLevel(), sink: console, generation: 0, toDiag: true }),
  // 6.0.0 kept its logger there as `{ logger, generation }`, a shape this copy does not read.
  { key: "svc.logger" },
);

/** Reads the level from `SVC_DEBUG` (`true` forces DEBUG) then `SVC_LOG_LEVEL`; INFO otherwise. */
function resolveLogLevel(env: Env = typeof process === "undefined" ? {} : process.env): LogLevel {
  if (env.SVC_DEBUG?.trim().toLowerCase() === "true") return LogLevel.DEBUG;
  const named = env.SVC_LOG_LEVEL?.trim().toUpperCase();
  if (named && named in LogLevel && Number.isNaN(Number(named))) return LogLevel[named as keyof typeof LogLevel];
  return LogLevel.INFO;
}

/**
 * Writes a line to one place only: at the SDK's level or above to the sink, below it (unless `NONE`) to
 * OpenTelemetry's `diag` logger when the app set one, which filters by its own level. Both would print it twice
 * where `diag` writes to the console too.
 */
function emit(method: Method, message: string, args: unknown[]): void {
  const s = state();
  const toSink = s.level <= LEVEL_OF[method];
  const toDiag = !toSink && s.toDiag && s.level !== LogLevel.NONE && diagIsSet();
  if (!toSink && !toDiag) return;
  const line = `${PREFIX} ${redactSecrets(message)}`;
  try {
    if (toDiag) diag[method](line);
    else s.sink[method](line, ...args);
  } catch {
    // A sink that throws must not turn a log line into an error in user code.
  }
}

const DIAG_KEY = Symbol.for("opentelemetry.js.api.1");

function diagIsSet(): boolean {
  const holder = (globalThis as unknown as Record<symbol, { diag?: unknown } | undefined>)[DIAG_KEY];
  return holder?.diag !== undefined;
}

const logger: SvcLogger = {
  debug: (message, ...args) => emit("debug", message, args),
  info: (message, ...args) => emit("info", message, args),
  warn: (message, ...args) => emit("warn", message, args),
  error: (message, ...args) => emit("error", message, args),
};

// State that another copy made in a shape this copy does not read is told once, through this logger.
reportUnshared((line) => logger.warn(line));

/** The logger every svc package writes to. */
export function getGlobalLogger(): SvcLogger {
  return logger;
}

/** Whether a line at `level` would be written (to the sink or to `diag`): lets callers skip building text nobody reads. */
export function isLogLevelEnabled(level: LogLevel): boolean {
  const s = state();
  return s.level <= level || (s.toDiag && s.level !== LogLevel.NONE && diagIsSet());
}

/** Options of {@link configureGlobalLogger}. */
export interface LoggerOptions {
  /** Lowest level written. @defaultValue from SVC_DEBUG / SVC_LOG_LEVEL, else INFO */
  level?: LogLevel;
  /** Where lines go. @defaultValue `console` */
  sink?: LogSink;
  /**
   * Write the lines below `level` to OpenTelemetry's `diag` logger when the app has set one (each line still goes to
   * one place only). @defaultValue true
   */
  forwardToDiag?: boolean;
}

let beforeReconfigure: (() => void) | undefined;

/** Sets what runs before each reconfiguration, while the old level and sink are in place: the repeat log's counts. */
export function setBeforeReconfigure(hook: () => void): void {
  beforeReconfigure = hook;
}

/**
 * Sets the level and, optionally, the sink of the logger every svc package shares; counts of repeated lines are
 * logged first.
 */
export function configureGlobalLogger(options: LoggerOptions): void {
  beforeReconfigure?.();
  const s = state();
  if (options.level !== undefined) s.level = options.level;
  if (options.sink !== undefined) s.sink = options.sink;
  if (options.forwardToDiag !== undefined) s.toDiag = options.forwardToDiag;
  s.generation += 1;
}

/** Counts reconfigurations of the shared logger, so that repeat suppression can start afresh. */
export function loggerGeneration(): number {
  return state().generation;
}
