import type { MeterProvider } from "@opentelemetry/api";
import {
  apiHeaders,
  booleanOption,
  compressionOption,
  connectionSettings,
  type Env,
  enumOption,
  environmentOption,
  functionOption,
  getGlobalLogger,
  logStartup,
  mergeHeaders,
  meterProviderOption,
  numberOption,
  type OptionSpec,
  OTLP_CONTENT_TYPES,
  OTLP_TRACES_PATH,
  objectOption,
  optionSettings,
  otlpHeaders,
  protocolOption,
  type ReadableSpan,
  readEnv,
  resolveConnection,
  resolveOptions,
  SOURCES,
  SPILL_SPECS,
  sampleRateOption,
  stringOption,
  stringRecordOption,
} from "@svc/core";

/** Receives one input, output or metadata value and returns what is exported instead (or a promise of it). */
export type MaskFunction = (params: { data: unknown }) => unknown;

/**
 * Decides whether a span is exported, instead of the default filter: its answer for the ended span decides (a throw
 * drops the span). Also asked at a span's start, with the span as it is then, to find the app's root observations.
 */
export type ShouldExportSpan = (params: { otelSpan: ReadableSpan }) => boolean;

/** Request body compression of span exports. */
export type SpanCompression = "gzip" | "none";

/** The OTLP/HTTP encoding of span exports: `http/json` or `http/protobuf`. */
export type SpanExportProtocol = "http/json" | "http/protobuf";

/** How ended spans are sent: gathered into batches, or as soon as each one ends. */
export type SpanExportMode = "batched" | "immediate";

/** Outcome passed to a span exporter's result callback: `code` 0 is success, 1 is failure. */
export interface SpanExportResult {
  code: number;
  error?: Error;
}

/** Any OpenTelemetry span exporter, such as `OTLPTraceExporter`; used instead of the built-in one. */
export interface SpanExporterLike {
  export(spans: ReadableSpan[], resultCallback: (result: SpanExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** Options of {@link SvcSpanProcessor}. Units are seconds where the name does not say otherwise. */
export interface SvcSpanProcessorParams {
  /** Project public key. Falls back to SVC_PUBLIC_KEY. */
  publicKey?: string;
  /** Project secret key. Falls back to SVC_SECRET_KEY. */
  secretKey?: string;
  /** Server address. Falls back to SVC_BASE_URL, then SVC_BASEURL. @defaultValue `https://cloud.svc.dev` */
  baseUrl?: string;
  /** Headers added to every export; they replace default headers of the same name, in any case. */
  additionalHeaders?: Record<string, string>;
  /**
   * Request body compression (browsers and edge runtimes never compress). Falls back to SVC_OTEL_COMPRESSION,
   * OTEL_EXPORTER_OTLP_TRACES_COMPRESSION, OTEL_EXPORTER_OTLP_COMPRESSION. @defaultValue `"gzip"`
   */
  compression?: SpanCompression;
  /**
   * Request body encoding (protobuf encodes faster). Falls back to OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, then
   * OTEL_EXPORTER_OTLP_PROTOCOL; any other value, `grpc` included, is ignored with a warning. @defaultValue `"http/json"`
   */
  protocol?: SpanExportProtocol;
  /**
   * `batched` sends requests of `flushAt` spans; `immediate` sends each span as it ends (those that end while every
   * request slot is busy travel together). @defaultValue `"batched"`
   */
  exportMode?: SpanExportMode;
  /** Spans per export request. Falls back to SVC_FLUSH_AT, then OTEL_BSP_MAX_EXPORT_BATCH_SIZE. @defaultValue 512 */
  flushAt?: number;
  /**
   * Seconds a partial batch waits before it is sent. Falls back to SVC_FLUSH_INTERVAL (seconds), then
   * OTEL_BSP_SCHEDULE_DELAY (milliseconds). @defaultValue 5
   */
  flushInterval?: number;
  /**
   * Seconds one export request may take. Falls back to SVC_TIMEOUT (seconds), then OTEL_EXPORTER_OTLP_TRACES_TIMEOUT
   * and OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds). @defaultValue 10
   */
  timeout?: number;
  /**
   * Longest time, in seconds, `forceFlush()` and `shutdown()` wait, whatever the server does (what is undelivered is
   * counted in one log line); below the 30 s a tracer provider gives `forceFlush()`. Falls back to
   * OTEL_BSP_EXPORT_TIMEOUT (milliseconds). @defaultValue 25
   */
  flushTimeout?: number;
  /** Ended spans held while waiting to be sent. Falls back to OTEL_BSP_MAX_QUEUE_SIZE. @defaultValue 100000 */
  maxQueueSize?: number;
  /**
   * Bytes of span data held, waiting or being sent: the estimated size of the encoded spans (attributes, events, links;
   * each character of text at 1.5 times what the engine holds it in, or more). @defaultValue 100 MiB
   */
  maxQueueBytes?: number;
  /** Largest request body sent, in bytes; larger batches are split. @defaultValue 4 MiB */
  maxRequestBytes?: number;
  /** Export requests in flight at the same time (1 while a fault lasts). @defaultValue 8 */
  maxConcurrentExports?: number;
  /**
   * Written to `svc.environment` on every span that has none: 1-40 characters of `a-z 0-9 _ -`, not starting with
   * `svc`. Falls back to SVC_TRACING_ENVIRONMENT; an invalid value is ignored with a warning.
   */
  environment?: string;
  /** Written to `svc.release` on every span. Falls back to SVC_RELEASE. */
  release?: string;
  /** Applied to every input, output and metadata attribute before export; may return a promise. */
  mask?: MaskFunction;
  /** Replaces the default export filter ({@link isDefaultExportSpan}); see {@link ShouldExportSpan}. */
  shouldExportSpan?: ShouldExportSpan;
  /**
   * Uploads base64 data URIs found in input, output and metadata, and exports media references instead. Falls back to
   * SVC_MEDIA_UPLOAD_ENABLED (`false` or `0` turns it off). @defaultValue true
   */
  mediaUploadEnabled?: boolean;
  /** Sends spans through this exporter instead of the built-in OTLP/HTTP exporter. */
  exporter?: SpanExporterLike;
  /**
   * When the event loop empties with spans queued (Node's `beforeExit`), flush them within `flushTimeout`; `false`
   * leaves them (the process ends at once, one line counts what was not delivered). @defaultValue true
   */
  flushOnExit?: boolean;
  /**
   * Share of traces exported, 0 to 1, decided per trace id, so every process (and `SvcClient`'s scores) with the same
   * rate keeps the same traces; a span a sampler left unsampled is never exported. Falls back to SVC_SAMPLE_RATE. @defaultValue 1
   */
  sampleRate?: number;
  /**
   * Where the delivery figures (`svc.delivery.*`, see `health()`) are observed as metrics: a `MeterProvider`, or
   * `"global"` for the global one (looked up when a batch is sent). Without it no instrument is created.
   */
  meterProvider?: MeterProvider | "global";
  /**
   * A directory where batches are written instead of dropped (on Node, Bun and Deno), when the queue is full and when
   * `shutdown()` ends with spans undelivered: masked, as their request bodies, and sent again, oldest first, once the
   * server answers, by this process or the next one with the same directory, server and public key. Falls back to
   * SVC_SPILL_DIR; ignored, with a warning, elsewhere and with a custom `exporter`. @defaultValue none
   */
  spillDir?: string;
  /** Bound of the spill directory in bytes; a batch past it is dropped (`spillFull`). Falls back to SVC_SPILL_MAX_BYTES. @defaultValue 512 MiB */
  spillMaxBytes?: number;
  /** Age in seconds past which a spilled batch is dropped (`spillExpired`). Falls back to SVC_SPILL_MAX_AGE. @defaultValue 86400 */
  spillMaxAge?: number;
}

/** The processor's name, as every log line of it starts. */
export const PROCESSOR_NAME = "SvcSpanProcessor";
const MIB = 1024 * 1024;

/** How each option of {@link SvcSpanProcessor} is read: its variables, its default and what is valid. */
export const PROCESSOR_SPECS = {
  compression: compressionOption(),
  protocol: protocolOption(),
  exportMode: enumOption<SpanExportMode, SpanExportMode>(["batched", "immediate"], "batched"),
  flushAt: numberOption(512, {
    min: 0,
    integer: true,
    zeroIsUnset: true,
    env: ["SVC_FLUSH_AT", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"],
  }),
  flushInterval: numberOption(5, {
    min: 0,
    zeroIsUnset: true,
    env: ["SVC_FLUSH_INTERVAL", { name: "OTEL_BSP_SCHEDULE_DELAY", scale: 0.001 }],
  }),
  timeout: numberOption(10, {
    min: 0,
    zeroIsUnset: true,
    env: [
      "SVC_TIMEOUT",
      { name: "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", scale: 0.001 },
      { name: "OTEL_EXPORTER_OTLP_TIMEOUT", scale: 0.001 },
    ],
  }),
  flushTimeout: numberOption(25, {
    min: 0,
    zeroIsUnset: true,
    env: [{ name: "OTEL_BSP_EXPORT_TIMEOUT", scale: 0.001 }],
  }),
  maxQueueSize: numberOption(100_000, { min: 0, integer: true, zeroIsUnset: true, env: ["OTEL_BSP_MAX_QUEUE_SIZE"] }),
  maxQueueBytes: numberOption(100 * MIB, { min: 0, integer: true, zeroIsUnset: true }),
  maxRequestBytes: numberOption(4 * MIB, { min: 1024, minInclusive: true, integer: true }),
  maxConcurrentExports: numberOption(8, { min: 0, max: 64, integer: true, zeroIsUnset: true }),
  environment: environmentOption(["SVC_TRACING_ENVIRONMENT"]),
  release: stringOption(["SVC_RELEASE"]),
  mask: functionOption<MaskFunction>(),
  shouldExportSpan: functionOption<ShouldExportSpan>(),
  mediaUploadEnabled: booleanOption(true, ["SVC_MEDIA_UPLOAD_ENABLED"]),
  additionalHeaders: stringRecordOption(),
  exporter: objectOption<SpanExporterLike>(["export", "shutdown"], "a span exporter (export and shutdown methods)"),
  flushOnExit: booleanOption(true),
  sampleRate: sampleRateOption(),
  meterProvider: meterProviderOption(),
  ...SPILL_SPECS,
} satisfies {
  // Every option but the connection's has a spec, and each spec reads the type its option is declared with.
  [K in Exclude<keyof SvcSpanProcessorParams, "publicKey" | "secretKey" | "baseUrl">]-?: OptionSpec<
    SvcSpanProcessorParams[K]
  >;
};

/**
 * Settings of a span processor after options, environment and defaults are applied: the value of each option spec
 * (those in seconds held in milliseconds, `flushInterval` as `flushIntervalMs`; `additionalHeaders` folded into
 * `headers`), and the connection. `cannotSend` says why spans cannot be sent at all (unset with an `exporter`).
 */
export type ProcessorConfig = ReturnType<typeof resolveProcessorConfig>;

/**
 * Resolves span processor settings: option, then environment, then default; an invalid value logs a warning
 * and falls through to the next setting. Never throws.
 */
export function resolveProcessorConfig(params: unknown, env: Env = readEnv()) {
  const o = resolveOptions(PROCESSOR_NAME, PROCESSOR_SPECS, params, env, ["publicKey", "secretKey", "baseUrl"]);
  const connection = resolveConnection(PROCESSOR_NAME, (params ?? {}) as Record<string, unknown>, env, {
    keysOptional: o.exporter !== undefined,
    withoutKeys: "no span is sent (each is counted as dropped)",
  });
  const headers = mergeHeaders(otlpHeaders(connection.publicKey, connection.secretKey), o.additionalHeaders);
  // OpenTelemetry's header variables add headers but, as with the OTLP exporters, never replace ones set in code.
  const fromEnv = {
    ...parseOtelHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...parseOtelHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  };
  for (const [name, value] of Object.entries(fromEnv)) headers[name] ??= value;
  headers["content-type"] = OTLP_CONTENT_TYPES[o.protocol];
  const cannotSend =
    connection.baseUrlProblem ??
    (headers.authorization
      ? undefined
      : "no credentials: the processor has no keys; pass publicKey and secretKey (or SVC_PUBLIC_KEY and SVC_SECRET_KEY)");
  logStartup(PROCESSOR_NAME, () => [
    ...connectionSettings(connection),
    ...optionSettings(PROCESSOR_SPECS, o),
    `otlpHeaders=${Object.keys(fromEnv).length > 0 ? `{${Object.keys(fromEnv).join(", ")}}` : "none"} (OTEL_EXPORTER_OTLP_*HEADERS)`,
  ]);
  const { flushInterval, timeout, flushTimeout, additionalHeaders: _folded, [SOURCES]: _sources, ...settings } = o;
  return {
    ...settings,
    flushIntervalMs: flushInterval * 1000,
    timeoutMs: timeout * 1000,
    flushTimeoutMs: flushTimeout * 1000,
    baseUrl: connection.baseUrl,
    publicKey: connection.publicKey,
    baseUrlProblem: o.exporter ? undefined : connection.baseUrlProblem,
    cannotSend: o.exporter ? undefined : cannotSend,
    endpoint: `${connection.baseUrl}${OTLP_TRACES_PATH}`,
    headers,
    apiHeaders: apiHeaders(connection.publicKey, connection.secretKey),
  };
}

/** Parses `name=value,name2=value2` (values URL-encoded) as the OpenTelemetry header variables are written. */
function parseOtelHeaders(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim().toLowerCase();
    try {
      if (name) out[name] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      getGlobalLogger().warn(`${PROCESSOR_NAME}: ignoring the malformed OTLP header "${name}" from the environment.`);
    }
  }
  return out;
}
