import {
  apiHeaders,
  type Backend,
  basicAuth,
  type Connection,
  connectionSettings,
  fetchBackend,
  functionOption,
  logStartup,
  mergeHeaders,
  numberOption,
  optionSettings,
  readEnv,
  resolveConnection,
  resolveOptions,
  spillSettings,
  stringRecordOption,
} from "@svc/core";
import {
  MAX_SCORES_PER_REQUEST,
  SCORE_ATTEMPT_TIMEOUT_SECONDS,
  SCORE_SPECS,
  type ScoreManagerConfig,
  type ScoreParams,
} from "./score/config.js";

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

/** Client settings, and beside them (so that printing the settings never shows them) what requests carry. */
export interface ResolvedClientConfig {
  config: SvcClientConfig;
  /** The headers of every request: the settings' headers and, when there is one, the authorization. */
  headers: Record<string, string>;
  /** Address and keys as resolved, with where each came from, for the doctor. */
  connection: Connection;
  /** Where requests go when the `fetch` option is given; undefined for the runtime's own HTTP stack. */
  backend: Backend | undefined;
}

/** Resolves client settings: option, then environment, then default. Never throws; problems are logged once. */
export function resolveClientConfig(params: unknown): ResolvedClientConfig {
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
