import { getGlobalLogger } from "@svc/tracing";

/** Default queue length that starts a score flush. */
export const DEFAULT_SCORE_FLUSH_AT = 10;
/** Default longest wait before queued scores are sent, in seconds. */
export const DEFAULT_SCORE_FLUSH_INTERVAL_SECONDS = 1;
/** Most scores per request to `POST /api/public/scores`. */
export const MAX_SCORES_PER_REQUEST = 100;
/** Default cap on scores waiting or being sent; further scores are dropped. */
export const DEFAULT_SCORE_MAX_QUEUE_SIZE = 100_000;
/** Default retries of a failed score batch (network errors, 408, 409, 429, 5xx). */
export const DEFAULT_SCORE_MAX_RETRIES = 2;

/** Score batching options of {@link SvcClient}. */
export interface ScoreParams {
  /** Queue length that starts a flush. Falls back to SVC_FLUSH_AT. @defaultValue 10 */
  flushAt?: number;
  /** Longest wait before queued scores are sent, in seconds. Falls back to SVC_FLUSH_INTERVAL. @defaultValue 1 */
  flushInterval?: number;
  /** Retries of a batch after a network error, 408, 409, 429 or 5xx, with backoff. @defaultValue 2 */
  scoreMaxRetries?: number;
  /** Most scores waiting or being sent; further scores are dropped with an error log. @defaultValue 100000 */
  scoreMaxQueueSize?: number;
  /** Environment of scores that name none. Falls back to SVC_TRACING_ENVIRONMENT. */
  environment?: string;
}

/** Score settings after options, environment and defaults. */
export interface ScoreManagerConfig {
  flushAt: number;
  flushIntervalMs: number;
  maxBatchSize: number;
  maxQueueSize: number;
  maxRetries: number;
  environment: string | undefined;
}

type Env = Record<string, string | undefined>;

/** Resolves score settings: option, then `SVC_*` environment variable, then default. */
export function resolveScoreConfig(params: ScoreParams = {}, env: Env = {}): ScoreManagerConfig {
  const flushAt = positive("flushAt", params.flushAt, true) ?? envPositive(env, "SVC_FLUSH_AT", true);
  const interval =
    positive("flushInterval", params.flushInterval, false) ?? envPositive(env, "SVC_FLUSH_INTERVAL", false);
  const maxRetries = params.scoreMaxRetries ?? DEFAULT_SCORE_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new TypeError(`SvcClient: option scoreMaxRetries must be a whole number >= 0, got ${String(maxRetries)}`);
  }
  return {
    flushAt: flushAt ?? DEFAULT_SCORE_FLUSH_AT,
    flushIntervalMs: 1000 * (interval ?? DEFAULT_SCORE_FLUSH_INTERVAL_SECONDS),
    maxBatchSize: MAX_SCORES_PER_REQUEST,
    maxQueueSize: positive("scoreMaxQueueSize", params.scoreMaxQueueSize, true) ?? DEFAULT_SCORE_MAX_QUEUE_SIZE,
    maxRetries,
    environment: params.environment ?? (env.SVC_TRACING_ENVIRONMENT || undefined),
  };
}

function positive(option: string, value: number | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (isPositive(value, integer)) return value;
  throw new TypeError(
    `SvcClient: option ${option} must be a positive ${integer ? "whole number" : "number"}, got ${String(value)}`,
  );
}

function envPositive(env: Env, name: string, integer: boolean): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (isPositive(value, integer)) return value;
  getGlobalLogger().warn(
    `SvcClient: ignoring ${name}=${JSON.stringify(raw)}: not a positive ${integer ? "whole " : ""}number`,
  );
  return undefined;
}

function isPositive(value: number, integer: boolean): boolean {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && (!integer || Number.isInteger(value));
}
