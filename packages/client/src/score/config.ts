import type { MeterProvider } from "@opentelemetry/api";
import {
  booleanOption,
  environmentOption,
  meterProviderOption,
  numberOption,
  SPILL_SPECS,
  type SpillSettings,
  sampleRateOption,
  spillSettings,
} from "@svc/core";

/** Most scores per request to `POST /api/public/scores`. */
export const MAX_SCORES_PER_REQUEST = 100;
/** Score requests in flight at the same time (a flush of 10,000 scores is 100 requests). */
export const MAX_CONCURRENT_SCORE_REQUESTS = 16;
/**
 * Longest wait for the answer to one score request, in seconds, as for span exports: a server that accepts the
 * connection and never answers costs a batch 10 s per attempt, not the client's REST `timeout` (60 s), and the
 * queue's backoff retries it. A lower client `timeout` applies.
 */
const SCORE_ATTEMPT_TIMEOUT_SECONDS = 10;

/** Score batching options of {@link SvcClient}. Units are seconds where the name does not say otherwise. */
export interface ScoreParams {
  /** Queue length that starts a flush. Falls back to SVC_FLUSH_AT. @defaultValue 10 */
  flushAt?: number;
  /** Longest wait before queued scores are sent, in seconds. Falls back to SVC_FLUSH_INTERVAL. @defaultValue 1 */
  flushInterval?: number;
  /**
   * Longest time, in seconds, `flush()` and `shutdown()` wait for the server, whatever it does; what is not
   * delivered by then is counted in one log line. @defaultValue 30
   */
  flushTimeout?: number;
  /** Most scores held (waiting or being sent); further scores are dropped with an error log. @defaultValue 100000 */
  scoreMaxQueueSize?: number;
  /** Most bytes of scores held (as JSON); further scores are dropped with an error log. @defaultValue 32 MiB */
  scoreMaxQueueBytes?: number;
  /**
   * Largest score request body, in bytes: batches are split to fit, a batch the server refuses with 413 is halved,
   * and a single score larger than this is dropped with an error log. @defaultValue 4 MiB
   */
  scoreMaxRequestBytes?: number;
  /**
   * Environment of scores that name none, by the rule of the span processor's `environment`. Falls back to
   * SVC_TRACING_ENVIRONMENT, read when the client is created, as the span processor reads it when it is created.
   */
  environment?: string;
  /**
   * When the event loop empties with scores still queued (Node's `beforeExit`), flush them, within
   * `flushTimeout`, so a script that ends without `shutdown()` still delivers its scores. `false` leaves them
   * queued (the process then ends at once, and one line counts what was not delivered). @defaultValue true
   */
  flushOnExit?: boolean;
  /**
   * Share of traces whose scores are sent, from 0 to 1, decided per trace id as `SvcSpanProcessor` decides which
   * traces it exports: with the same rate, a score is sent exactly when its trace is. A score whose trace is left out
   * is counted as `sampledOut` in `health()`; a score without a `traceId` is always sent. Falls back to
   * SVC_SAMPLE_RATE. @defaultValue 1
   */
  sampleRate?: number;
  /**
   * Where the score queue's delivery figures (`svc.delivery.*` with `svc.delivery.items=scores`) are observed as
   * metrics: a `MeterProvider`, or `"global"` for the OpenTelemetry global meter provider. Without it no instrument
   * is created. @defaultValue undefined
   */
  meterProvider?: MeterProvider | "global";
  /**
   * A directory where score batches are written instead of being dropped, on Node, Bun and Deno: when the queue is
   * full, and when `shutdown()` ends with scores undelivered; sent again, oldest first, as soon as the server
   * answers, by this process or the next one started with the same directory (and the same server and public key).
   * The span processor may share it. Falls back to SVC_SPILL_DIR. Ignored, with one warning, in Cloudflare Workers,
   * edge runtimes and browsers. @defaultValue none (nothing is written to disk)
   */
  spillDir?: string;
  /** Bound of the spill directory's size in bytes, all its files counted. Falls back to SVC_SPILL_MAX_BYTES. @defaultValue 512 MiB */
  spillMaxBytes?: number;
  /** Age in seconds past which a spilled batch is dropped instead of sent. Falls back to SVC_SPILL_MAX_AGE. @defaultValue 86400 */
  spillMaxAge?: number;
}

/** Score settings after options, environment and defaults. */
export interface ScoreManagerConfig {
  flushAt: number;
  flushIntervalMs: number;
  flushTimeoutMs: number;
  maxBatchSize: number;
  maxQueueSize: number;
  maxQueueBytes: number;
  maxRequestBytes: number;
  environment: string | undefined;
  /** `OTEL_SDK_DISABLED=true`: scores are neither queued nor sent, as spans are not. */
  disabled: boolean;
  flushOnExit: boolean;
  /** Share of traces whose scores are sent, 0 to 1. */
  sampleRate: number;
  /** Time limit of one score request attempt, in seconds: the client's `timeout`, at most 10. */
  attemptTimeoutSeconds: number;
  /** Where the delivery figures are observed as metrics, if anywhere. */
  meterProvider: MeterProvider | "global" | undefined;
  /** The spill directory and its bounds, when scores are spilled. */
  spill: SpillSettings | undefined;
}

/** How the score options are read; resolved together with the client's own options. */
export const SCORE_SPECS = {
  flushAt: numberOption(10, { min: 0, integer: true, zeroIsUnset: true, env: ["SVC_FLUSH_AT"] }),
  flushInterval: numberOption(1, { min: 0, zeroIsUnset: true, env: ["SVC_FLUSH_INTERVAL"] }),
  flushTimeout: numberOption(30, { min: 0, zeroIsUnset: true }),
  scoreMaxQueueSize: numberOption(100_000, { min: 0, integer: true, zeroIsUnset: true }),
  scoreMaxQueueBytes: numberOption(32 * 1024 * 1024, { min: 0, integer: true, zeroIsUnset: true }),
  scoreMaxRequestBytes: numberOption(4 * 1024 * 1024, { min: 1024, minInclusive: true, integer: true }),
  environment: environmentOption(["SVC_TRACING_ENVIRONMENT"]),
  flushOnExit: booleanOption(true),
  sampleRate: sampleRateOption(),
  meterProvider: meterProviderOption(),
  ...SPILL_SPECS,
};

/** The score manager's settings from resolved options and the environment. */
export function scoreConfigFrom(
  o: {
    flushAt: number;
    flushInterval: number;
    flushTimeout: number;
    scoreMaxQueueSize: number;
    scoreMaxQueueBytes: number;
    scoreMaxRequestBytes: number;
    environment: string | undefined;
    flushOnExit: boolean;
    sampleRate: number;
    timeout: number;
    meterProvider?: MeterProvider | "global" | undefined;
    spillDir?: string | undefined;
    spillMaxBytes?: number;
    spillMaxAge?: number;
  },
  env: Record<string, string | undefined>,
): ScoreManagerConfig {
  return {
    flushAt: o.flushAt,
    flushIntervalMs: o.flushInterval * 1000,
    flushTimeoutMs: o.flushTimeout * 1000,
    maxBatchSize: MAX_SCORES_PER_REQUEST,
    maxQueueSize: o.scoreMaxQueueSize,
    maxQueueBytes: o.scoreMaxQueueBytes,
    maxRequestBytes: o.scoreMaxRequestBytes,
    environment: o.environment,
    // `OTEL_SDK_DISABLED=true` (in any case) turns OpenTelemetry off, and scores with it.
    disabled: env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true",
    flushOnExit: o.flushOnExit,
    sampleRate: o.sampleRate,
    attemptTimeoutSeconds: Math.min(o.timeout, SCORE_ATTEMPT_TIMEOUT_SECONDS),
    meterProvider: o.meterProvider,
    spill: spillSettings("ScoreManager", o),
  };
}
