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

const PREFIX = "[Svc SDK]";

type Env = Record<string, string | undefined>;

/** Reads the level from `SVC_DEBUG` (true forces DEBUG) then `SVC_LOG_LEVEL`; INFO otherwise. */
export function resolveLogLevel(env: Env = readProcessEnv()): LogLevel {
  if (env.SVC_DEBUG?.toLowerCase() === "true") return LogLevel.DEBUG;
  const named = env.SVC_LOG_LEVEL?.toUpperCase();
  if (named && named in LogLevel && Number.isNaN(Number(named))) return LogLevel[named as keyof typeof LogLevel];
  return LogLevel.INFO;
}

function readProcessEnv(): Env {
  return typeof process === "undefined" ? {} : process.env;
}

class ConsoleLogger implements SvcLogger {
  level: LogLevel;
  sink: LogSink;

  constructor(level: LogLevel, sink: LogSink) {
    this.level = level;
    this.sink = sink;
  }

  debug(message: string, ...args: unknown[]): void {
    if (this.level <= LogLevel.DEBUG) this.sink.debug(`${PREFIX} ${message}`, ...args);
  }
  info(message: string, ...args: unknown[]): void {
    if (this.level <= LogLevel.INFO) this.sink.info(`${PREFIX} ${message}`, ...args);
  }
  warn(message: string, ...args: unknown[]): void {
    if (this.level <= LogLevel.WARN) this.sink.warn(`${PREFIX} ${message}`, ...args);
  }
  error(message: string, ...args: unknown[]): void {
    if (this.level <= LogLevel.ERROR) this.sink.error(`${PREFIX} ${message}`, ...args);
  }
}

// One logger shared by every svc package, even when several copies of this module are loaded.
const SLOT = Symbol.for("svc.logger");
type Slot = { logger?: ConsoleLogger; generation?: number };

function slot(): Slot {
  const holder = globalThis as unknown as Record<symbol, Slot | undefined>;
  holder[SLOT] ??= {};
  return holder[SLOT];
}

/** The logger every svc package writes to. */
export function getGlobalLogger(): SvcLogger {
  const s = slot();
  s.logger ??= new ConsoleLogger(resolveLogLevel(), console);
  return s.logger;
}

/** Sets the level and, optionally, the sink of the shared SDK logger. */
export function configureGlobalLogger(options: { level?: LogLevel; sink?: LogSink }): void {
  const logger = getGlobalLogger() as ConsoleLogger;
  if (options.level !== undefined) logger.level = options.level;
  if (options.sink !== undefined) logger.sink = options.sink;
  const s = slot();
  s.generation = (s.generation ?? 0) + 1;
}

/**
 * Counts calls of {@link configureGlobalLogger}, so that repeat suppression can start afresh for a new setting.
 * @internal
 */
export function loggerGeneration(): number {
  return slot().generation ?? 0;
}
