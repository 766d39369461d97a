import { getGlobalLogger, SDK_VERSION } from "@svc/tracing";
import { toBase64 } from "./internal/base64.js";
import type { ReadableSpan } from "./readable-span.js";

/** Receives one input, output or metadata value and returns what is exported instead. */
export type MaskFunction = (params: { data: unknown }) => unknown;

/** Decides whether an ended span is exported. Replaces the default filter completely. */
export type ShouldExportSpan = (params: { otelSpan: ReadableSpan }) => boolean;

/** Request body compression of span exports. */
export type SpanCompression = "gzip" | "none";

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

/** Options of {@link SvcSpanProcessor}. */
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
   * Request body compression. Falls back to SVC_OTEL_COMPRESSION, OTEL_EXPORTER_OTLP_TRACES_COMPRESSION,
   * OTEL_EXPORTER_OTLP_COMPRESSION. Browser and edge runtimes always send uncompressed bodies.
   * @defaultValue `"gzip"`
   */
  compression?: SpanCompression;
  /**
   * `batched` gathers spans into requests of `flushAt`; `immediate` sends each span as soon as it ends (spans that
   * end while every request slot is busy travel together). @defaultValue `"batched"`
   */
  exportMode?: SpanExportMode;
  /** Spans per export request; a full batch is sent at once. Falls back to SVC_FLUSH_AT. @defaultValue 512 */
  flushAt?: number;
  /** Seconds a partial batch waits before it is sent. Falls back to SVC_FLUSH_INTERVAL. @defaultValue 5 */
  flushInterval?: number;
  /** Seconds one export request may take before it is aborted and retried. Falls back to SVC_TIMEOUT. @defaultValue 10 */
  timeout?: number;
  /** Ended spans held while waiting to be sent; further spans are dropped and logged. @defaultValue 100000 */
  maxQueueSize?: number;
  /** Export requests in flight at the same time. @defaultValue 8 */
  maxConcurrentExports?: number;
  /** Written to `svc.environment` on every span that has none. Falls back to SVC_TRACING_ENVIRONMENT. */
  environment?: string;
  /** Written to `svc.release` on every span. Falls back to SVC_RELEASE. */
  release?: string;
  /** Applied to every input, output and metadata attribute before export. */
  mask?: MaskFunction;
  /** Replaces the default export filter ({@link isDefaultExportSpan}). */
  shouldExportSpan?: ShouldExportSpan;
  /**
   * Uploads base64 data URIs found in input, output and metadata, and exports media references instead.
   * Falls back to SVC_MEDIA_UPLOAD_ENABLED (`false` or `0` turns it off). @defaultValue true
   */
  mediaUploadEnabled?: boolean;
  /** Sends spans through this exporter instead of the built-in OTLP/JSON exporter. */
  exporter?: SpanExporterLike;
}

/** Settings of a span processor after options, environment and defaults are applied. */
export interface SvcSpanProcessorConfig {
  publicKey: string | undefined;
  secretKey: string | undefined;
  baseUrl: string;
  /** `{baseUrl}/api/public/otel/v1/traces` */
  endpoint: string;
  /** Every header of an export request, lower-case names, after `additionalHeaders`. */
  headers: Record<string, string>;
  compression: SpanCompression;
  exportMode: SpanExportMode;
  flushAt: number;
  flushIntervalMs: number;
  timeoutMs: number;
  maxQueueSize: number;
  maxConcurrentExports: number;
  environment: string | undefined;
  release: string | undefined;
  mediaUploadEnabled: boolean;
  mask: MaskFunction | undefined;
  shouldExportSpan: ShouldExportSpan | undefined;
  exporter: SpanExporterLike | undefined;
}

type Env = Record<string, string | undefined>;

/** Server address used when neither the option nor the environment names one. */
export const DEFAULT_BASE_URL = "https://cloud.svc.dev";
/** Default spans per export request. */
export const DEFAULT_FLUSH_AT = 512;
/** Default seconds before a partial batch is sent. */
export const DEFAULT_FLUSH_INTERVAL_S = 5;
/** Default seconds one export request may take. */
export const DEFAULT_TIMEOUT_S = 10;
/** Default bound of the queue of ended spans. */
export const DEFAULT_MAX_QUEUE_SIZE = 100_000;
/** Default number of export requests in flight. */
export const DEFAULT_MAX_CONCURRENT_EXPORTS = 8;
/** Environment variables read for the compression setting, first valid value wins. */
export const COMPRESSION_ENV_VARS = [
  "SVC_OTEL_COMPRESSION",
  "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
  "OTEL_EXPORTER_OTLP_COMPRESSION",
] as const;

const COMPRESSIONS: readonly SpanCompression[] = ["gzip", "none"];
const PREFIX = "SvcSpanProcessor:";

/** Resolves span processor settings: option, then environment, then default. Warns about missing keys. */
export function resolveProcessorConfig(
  params: SvcSpanProcessorParams = {},
  env: Env = readEnv(),
): SvcSpanProcessorConfig {
  checkOptionTypes(params);
  const logger = getGlobalLogger();
  const publicKey = params.publicKey ?? nonEmpty(env.SVC_PUBLIC_KEY);
  const secretKey = params.secretKey ?? nonEmpty(env.SVC_SECRET_KEY);
  if (!publicKey && !params.exporter)
    logger.warn(`${PREFIX} no public key; pass publicKey or set SVC_PUBLIC_KEY. Exports will be rejected.`);
  if (!secretKey && !params.exporter)
    logger.warn(`${PREFIX} no secret key; pass secretKey or set SVC_SECRET_KEY. Exports will be rejected.`);
  const baseUrl = (
    params.baseUrl ??
    nonEmpty(env.SVC_BASE_URL) ??
    nonEmpty(env.SVC_BASEURL) ??
    DEFAULT_BASE_URL
  ).replace(/\/+$/, "");
  return {
    publicKey,
    secretKey,
    baseUrl,
    endpoint: `${baseUrl}/api/public/otel/v1/traces`,
    headers: exportHeaders(publicKey, secretKey, params.additionalHeaders, env),
    compression: resolveCompression(params.compression, env),
    exportMode: params.exportMode ?? "batched",
    flushAt: params.flushAt ?? envPositiveInt(env, "SVC_FLUSH_AT") ?? DEFAULT_FLUSH_AT,
    flushIntervalMs:
      1000 * (params.flushInterval ?? envPositiveNumber(env, "SVC_FLUSH_INTERVAL") ?? DEFAULT_FLUSH_INTERVAL_S),
    timeoutMs: 1000 * (params.timeout ?? envPositiveNumber(env, "SVC_TIMEOUT") ?? DEFAULT_TIMEOUT_S),
    maxQueueSize: params.maxQueueSize ?? DEFAULT_MAX_QUEUE_SIZE,
    maxConcurrentExports: params.maxConcurrentExports ?? DEFAULT_MAX_CONCURRENT_EXPORTS,
    environment: params.environment ?? nonEmpty(env.SVC_TRACING_ENVIRONMENT),
    release: params.release ?? nonEmpty(env.SVC_RELEASE),
    mediaUploadEnabled: params.mediaUploadEnabled ?? !/^(false|0)$/i.test(env.SVC_MEDIA_UPLOAD_ENABLED?.trim() ?? ""),
    mask: params.mask,
    shouldExportSpan: params.shouldExportSpan,
    exporter: params.exporter,
  };
}

function readEnv(): Env {
  return typeof process === "undefined" ? {} : process.env;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value ? value : undefined;
}

function resolveCompression(option: SpanCompression | undefined, env: Env): SpanCompression {
  if (option !== undefined) return option;
  for (const name of COMPRESSION_ENV_VARS) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const value = raw.trim().toLowerCase();
    if ((COMPRESSIONS as readonly string[]).includes(value)) return value as SpanCompression;
    getGlobalLogger().warn(`${PREFIX} ignoring ${name}="${raw}"; allowed values are gzip and none.`);
  }
  return "gzip";
}

function envPositiveNumber(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (Number.isFinite(value) && value > 0) return value;
  getGlobalLogger().warn(`${PREFIX} ignoring ${name}="${raw}"; expected a positive number.`);
  return undefined;
}

function envPositiveInt(env: Env, name: string): number | undefined {
  const value = envPositiveNumber(env, name);
  if (value === undefined || Number.isInteger(value)) return value;
  getGlobalLogger().warn(`${PREFIX} ignoring ${name}="${env[name]}"; expected a whole number.`);
  return undefined;
}

function exportHeaders(
  publicKey: string | undefined,
  secretKey: string | undefined,
  additional: Record<string, string> | undefined,
  env: Env,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Basic ${toBase64(new TextEncoder().encode(`${publicKey ?? ""}:${secretKey ?? ""}`))}`,
    "x-svc-sdk-name": "javascript",
    "x-svc-sdk-version": SDK_VERSION,
    "x-svc-public-key": publicKey ?? "<missing>",
    "x-svc-ingestion-version": "4",
  };
  for (const [name, value] of Object.entries(additional ?? {})) headers[name.toLowerCase()] = String(value);
  // OpenTelemetry's header variables add headers but, as with the OTLP exporters, never replace ones set in code.
  const fromEnv = {
    ...parseOtelHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...parseOtelHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  };
  for (const [name, value] of Object.entries(fromEnv)) headers[name] ??= value;
  headers["content-type"] = "application/json";
  return headers;
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
      getGlobalLogger().warn(`${PREFIX} ignoring the malformed OTLP header "${name}" from the environment.`);
    }
  }
  return out;
}

function checkOptionTypes(params: SvcSpanProcessorParams): void {
  const positive = ["flushAt", "flushInterval", "timeout", "maxQueueSize", "maxConcurrentExports"] as const;
  for (const name of positive) {
    const value = params[name];
    if (value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value > 0))
      throw new TypeError(`${PREFIX} option ${name} must be a positive number, got ${String(value)}`);
  }
  const integers = ["flushAt", "maxQueueSize", "maxConcurrentExports"] as const;
  for (const name of integers) {
    const value = params[name];
    if (value !== undefined && !Number.isInteger(value))
      throw new TypeError(`${PREFIX} option ${name} must be a whole number, got ${String(value)}`);
  }
  if (params.compression !== undefined && !COMPRESSIONS.includes(params.compression))
    throw new TypeError(`${PREFIX} option compression must be "gzip" or "none", got ${String(params.compression)}`);
  if (params.exportMode !== undefined && params.exportMode !== "batched" && params.exportMode !== "immediate")
    throw new TypeError(
      `${PREFIX} option exportMode must be "batched" or "immediate", got ${String(params.exportMode)}`,
    );
  for (const name of ["mask", "shouldExportSpan"] as const) {
    const value = params[name];
    if (value !== undefined && typeof value !== "function")
      throw new TypeError(`${PREFIX} option ${name} must be a function, got ${typeof value}`);
  }
}
