import type { MeterProvider } from "@opentelemetry/api";
import {
  booleanOption,
  environmentOption,
  meterProviderOption,
  numberOption,
  SPILL_SPECS,
  type SpillSettings,
  sampleRateOption,
} from "@svc/core";

/** Most scores per request to `POST /api/public/scores`. */
export const MAX_SCORES_PER_REQUEST = 100;
/** Score requests in flight at the same time (a flush of 10,000 scores is 100 requests). */
export const MAX_CONCURRENT_SCORE_REQUESTS = 16;
/** Longest wait for one score request's answer, in seconds, as for span exports; a lower client `timeout` applies. */
export const SCORE_ATTEMPT_TIMEOUT_SECONDS = 10;

/** Score batching options of {@link SvcClient}. Units are seconds where the name does not say otherwise. */
export interface ScoreParams {
  /** Queue length that starts a flush. Falls back to SVC_FLUSH_AT. @defaultValue 10 */
  flushAt?: number;
  /** Longest wait before queued scores are sent, in seconds. Falls back to SVC_FLUSH_INTERVAL. @defaultValue 1 */
  flushInterval?: number;
  /** Longest wait of `flush()` and `shutdown()` for the server, in seconds; the rest is logged. @defaultValue 30 */
  flushTimeout?: number;
  /** Most scores held (waiting or being sent); further scores are dropped with an error log. @defaultValue 100000 */
  scoreMaxQueueSize?: number;
  /** Most bytes of scores held (as JSON); further scores are dropped with an error log. @defaultValue 32 MiB */
  scoreMaxQueueBytes?: number;
  /** Largest score request body, in bytes: batches are split to fit, a larger score is dropped. @defaultValue 4 MiB */
  scoreMaxRequestBytes?: number;
  /** Environment of scores that name none, as the span processor's. Falls back to SVC_TRACING_ENVIRONMENT. */
  environment?: string;
  /**
   * Flush queued scores when the event loop empties (`beforeExit`), so a script without `shutdown()` delivers them;
   * `false` leaves them queued and counted in one line. @defaultValue true
   */
  flushOnExit?: boolean;
  /**
   * Share of traces whose scores are sent, 0 to 1, decided per trace id as `SvcSpanProcessor` decides; scores without
   * a `traceId` are always sent. Falls back to SVC_SAMPLE_RATE. @defaultValue 1
   */
  sampleRate?: number;
  /** Where the score queue's `svc.delivery.*` figures are observed as metrics: a `MeterProvider` or `"global"`. */
  meterProvider?: MeterProvider | "global";
  /**
   * Directory where score batches go instead of being dropped (Node, Bun, Deno), sent again once the server answers,
   * by this process or the next. Falls back to SVC_SPILL_DIR. @defaultValue none (nothing is written to disk)
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
