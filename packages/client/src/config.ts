import type { MeterProvider } from "@opentelemetry/api";
import {
  apiHeaders,
  basicAuth,
  booleanOption,
  connectionSettings,
  environmentOption,
  fetchBackend,
  functionOption,
  logStartup,
  mergeHeaders,
  meterProviderOption,
  numberOption,
  optionSettings,
  readEnv,
  resolveConnection,
  resolveOptions,
  SPILL_SPECS,
  type SpillSettings,
  sampleRateOption,
  spillSettings,
  stringRecordOption,
} from "@svc/core";

/** Most scores per request to `POST /api/public/scores`. */
export const MAX_SCORES_PER_REQUEST = 100;
/**
 * Longest wait for one score request's answer, in seconds, as for span exports: a silent server costs 10 s per attempt,
 * not the REST `timeout`'s 60 s. A lower client `timeout` applies.
 */
const SCORE_ATTEMPT_TIMEOUT_SECONDS = 10;

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
  /**
   * Largest score request body, in bytes: batches are split to fit (a 413 halves one), a larger score is dropped.
   * @defaultValue 4 MiB
   */
  scoreMaxRequestBytes?: number;
  /** Environment of scores that name none, as the span processor's. Falls back to SVC_TRACING_ENVIRONMENT. */
  environment?: string;
  /**
   * Flush queued scores, within `flushTimeout`, when the event loop empties (`beforeExit`), so a script without
   * `shutdown()` delivers them; `false` leaves them queued (the process ends at once) and counted in one line.
   * @defaultValue true
   */
  flushOnExit?: boolean;
  /**
   * Share of traces whose scores are sent, 0 to 1, decided per trace id as `SvcSpanProcessor` decides: with the same
   * rate a score is sent exactly when its trace is, others are counted as `sampledOut`. Scores without a `traceId` are
   * always sent. Falls back to SVC_SAMPLE_RATE. @defaultValue 1
   */
  sampleRate?: number;
  /**
   * Where the score queue's `svc.delivery.*` figures are observed as metrics: a `MeterProvider` or `"global"`. Without
   * it no instrument is created.
   */
  meterProvider?: MeterProvider | "global";
  /**
   * Directory where score batches go instead of being dropped (Node, Bun, Deno), sent again once the server answers,
   * by this process or the next one with the same directory, server and public key; the span processor may share it.
   * Falls back to SVC_SPILL_DIR; ignored, with one warning, elsewhere (Workers, edge runtimes, browsers).
   * @defaultValue none (nothing is written to disk)
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

/** Options of {@link SvcClient}. Units are seconds where the name does not say otherwise. */
export interface SvcClientParams extends ScoreParams {
  /** Project public key. Falls back to SVC_PUBLIC_KEY. */
  publicKey?: string;
  /** Project secret key. Falls back to SVC_SECRET_KEY. */
  secretKey?: string;
  /** Server address. Falls back to SVC_BASE_URL, then SVC_BASEURL. @defaultValue `https://cloud.svc.dev` */
  baseUrl?: string;
  /** Time limit of each REST call attempt, in seconds; a score batch waits at most 10 s per attempt. @defaultValue 60 */
  timeout?: number;
  /** Headers added to every REST call. */
  additionalHeaders?: Record<string, string>;
  /**
   * The fetch function every request of the client goes through (REST calls, prompts, datasets, scores, media).
   * @defaultValue the runtime's HTTP stack (`node:http` on Node, not `globalThis.fetch`)
   */
  fetch?: typeof fetch;
}

/** Settings of a client after options, environment and defaults are applied. */
export interface SvcClientConfig {
  /** Server address without a trailing slash. */
  baseUrl: string;
  /** Why nothing can be sent (the base URL is not a valid http(s) URL), or undefined. */
  baseUrlProblem: string | undefined;
  /** Whether both keys are set; without them no request carries credentials and scores are not sent. */
  hasCredentials: boolean;
  /** Public key, if any (the secret key is kept out of this object). */
  publicKey: string | undefined;
  /** Default time limit of each REST call attempt, in seconds. */
  timeoutSeconds: number;
  /** Headers of every REST call but the credentials: `additionalHeaders`, SDK identity, user agent. */
  headers: Record<string, string>;
  /** Score batching settings. */
  score: ScoreManagerConfig;
}

const NAME = "SvcClient";

/** How the options of {@link SvcClient} other than the score options are read. */
export const CLIENT_SPECS = {
  timeout: numberOption(60, { min: 0, zeroIsUnset: true }),
  additionalHeaders: stringRecordOption(),
  fetch: functionOption<typeof fetch>(),
};

/**
 * Resolves client settings: option, then environment, then default. Never throws; problems are logged once. Beside the
 * settings (so that printing them never shows these): the headers of every request (with the authorization), the
 * address and keys with where each came from (for the doctor), and the backend of the `fetch` option.
 */
export function resolveClientConfig(params: unknown) {
  const env = readEnv();
  const specs = { ...CLIENT_SPECS, ...SCORE_SPECS };
  const o = resolveOptions(NAME, specs, params, env, ["publicKey", "secretKey", "baseUrl"]);
  const connection = resolveConnection(NAME, (params ?? {}) as Record<string, unknown>, env, {
    withoutKeys: "REST calls go out without credentials (the server answers 401) and scores are not sent",
  });
  const auth = basicAuth(connection.publicKey, connection.secretKey);
  const score: ScoreManagerConfig = {
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
  logStartup(NAME, () => [
    ...connectionSettings(connection),
    ...optionSettings(specs, o),
    `scores=${score.disabled ? "off (OTEL_SDK_DISABLED)" : "on"}`,
  ]);
  const { authorization: givenAuthorization, ...extra } = mergeHeaders(o.additionalHeaders);
  const config: SvcClientConfig = {
    baseUrl: connection.baseUrl,
    baseUrlProblem: connection.baseUrlProblem,
    hasCredentials: auth !== undefined,
    publicKey: connection.publicKey,
    timeoutSeconds: o.timeout,
    headers: { ...extra, ...apiHeaders(connection.publicKey) },
    score,
  };
  // The keys win over an Authorization of additionalHeaders; without them, that one is sent as given.
  const authorization = auth ?? givenAuthorization;
  return {
    config,
    headers: authorization === undefined ? config.headers : { ...config.headers, authorization },
    connection,
    backend: o.fetch ? fetchBackend(o.fetch) : undefined,
  };
}
