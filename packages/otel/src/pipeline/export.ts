import type { Attributes } from "@opentelemetry/api";
import {
  cutAtCodePoint,
  describeError,
  encodeTraces,
  failedOutcome,
  getGlobalLogger,
  type HttpResult,
  httpRequest,
  isLogLevelEnabled,
  Limiter,
  LogLevel,
  outcomeOf,
  type ReadableSpan,
  type SendOutcome,
  Spill,
  sendInHalves,
  spillSettings,
  suppressed,
  tooLargeOutcome,
} from "@svc/core";
import { PROCESSOR_NAME, type ProcessorConfig, type SpanExporterLike } from "../config.js";
import type { EnrichStage, OutgoingSpan } from "./enrich.js";
import type { UsageStage } from "./usage.js";

/**
 * Batches encoded and compressed at once while a flush waits for them (one otherwise): libuv's default pool size. Each
 * gzip stream takes turns between a pool thread and the app thread; on two cores, 2 at once flushed 1.1–1.2× slower.
 */
const FLUSH_ENCODING_CONCURRENCY = 4;
/** Times a single span too large for one request is cut before it is dropped. */
const MAX_CUTS = 4;
const CUT_MARKER = "...[truncated: the span was too large to send]";
/** Time a user-supplied exporter gets beyond one request's timeout, for its own retries. */
const EXPORTER_GRACE_MS = 30_000;

/**
 * The export stage: encodes a batch as OTLP/JSON or OTLP/protobuf, compresses it and posts it (or hands it to the
 * user's exporter), and says what became of each span. A body larger than `maxRequestBytes`, or one the server
 * refuses with 413, is split in halves; a single span still too large has its largest values cut with a marker,
 * and is dropped only when that is not enough.
 */
export class ExportStage {
  readonly #encoding: Limiter;

  constructor(
    private readonly config: ProcessorConfig,
    isFlushing: () => boolean,
  ) {
    this.#encoding = new Limiter(() => (isFlushing() ? FLUSH_ENCODING_CONCURRENCY : 1));
  }

  /** Lets waiting encodings start when a flush raises the limit. */
  wake(): void {
    this.#encoding.wake();
  }

  /**
   * Sends a batch; `live(ms)` is told of each step that may take `ms` (a request and its timeout, a call of the
   * user's exporter), so that the queue takes the send as lost only once that step has outlived its time.
   */
  async send(
    batch: OutgoingSpan[],
    signal: AbortSignal,
    live: (stepMs: number) => void = () => {},
  ): Promise<SendOutcome<OutgoingSpan>> {
    const { exporter, baseUrlProblem, cannotSend } = this.config;
    if (exporter) {
      live(this.config.timeoutMs + EXPORTER_GRACE_MS);
      return exportThrough(exporter, batch, this.config.timeoutMs + EXPORTER_GRACE_MS, signal);
    }
    if (baseUrlProblem !== undefined) {
      // As the client's REST runtime does: a failure of the request, so that health() keeps it as lastError.
      const failure = { kind: "invalid-url" as const, detail: baseUrlProblem };
      return outcomeOf({ ok: false, failure, attempts: 0, url: this.config.endpoint }, batch, "POST");
    }
    if (cannotSend) return failedOutcome(batch.length, cannotSend);
    return this.#post(batch, signal, 0, live);
  }

  async #post(
    batch: OutgoingSpan[],
    signal: AbortSignal,
    cuts: number,
    live: (stepMs: number) => void,
  ): Promise<SendOutcome<OutgoingSpan>> {
    let body: { bytes: Uint8Array; headers: Record<string, string> };
    try {
      body = await this.#encoding.run(() => this.encode(batch));
    } catch (error) {
      return failedOutcome(batch.length, `encoding failed: ${describeError(error)}`);
    }
    if (body.bytes.byteLength > this.config.maxRequestBytes)
      return this.#tooLarge(batch, signal, cuts, "over maxRequestBytes", live);
    const started = Date.now();
    live(this.config.timeoutMs);
    const result = await this.post(body.bytes, body.headers, signal);
    if (!result.ok && result.failure.kind === "status" && result.failure.status === 413)
      return this.#tooLarge(batch, signal, cuts, "the server answered 413", live);
    if (result.ok && isLogLevelEnabled(LogLevel.DEBUG))
      getGlobalLogger().debug(
        `${PROCESSOR_NAME}: exported ${batch.length} span${batch.length === 1 ? "" : "s"} (${body.bytes.byteLength} bytes, ${Date.now() - started} ms)`,
      );
    return outcomeOf(result, batch, "POST");
  }

  /** Splits a batch that is too large; cuts a single span, then drops it. */
  async #tooLarge(
    batch: OutgoingSpan[],
    signal: AbortSignal,
    cuts: number,
    why: string,
    live: (stepMs: number) => void,
  ): Promise<SendOutcome<OutgoingSpan>> {
    if (batch.length > 1) return sendInHalves(batch, (part) => this.#post(part, signal, cuts, live));
    const [item] = batch as [OutgoingSpan];
    if (cuts < MAX_CUTS && cutLargestValue(item)) return this.#post(batch, signal, cuts + 1, live);
    return tooLargeOutcome(`span "${item.span.name}"`, why, "maxRequestBytes");
  }

  /** Posts one body to the endpoint, once: the queue retries, with backoff, for as long as the spans fit in it. */
  post(body: Uint8Array, headers: Record<string, string>, signal: AbortSignal): Promise<HttpResult> {
    const { endpoint: url, timeoutMs: attemptTimeoutMs } = this.config;
    return httpRequest({
      method: "POST",
      url,
      headers,
      body,
      attemptTimeoutMs,
      maxRetries: 0,
      signal,
      background: true,
    });
  }

  /** The request body of a batch (OTLP, compressed as configured) and every header of its request. */
  async encode(batch: readonly OutgoingSpan[]): Promise<{ bytes: Uint8Array; headers: Record<string, string> }> {
    const items = batch.map((item) => ({ span: item.span, attributes: item.attributes ?? item.span.attributes }));
    const { bytes, gzipped } = await encodeTraces(items, this.config.protocol, this.config.compression);
    return { bytes, headers: gzipped ? { ...this.config.headers, "content-encoding": "gzip" } : this.config.headers };
  }
}

/** Halves the longest string value of a span's attributes, with a marker; false when there is nothing to cut. */
function cutLargestValue(item: OutgoingSpan): boolean {
  const attributes: Attributes = { ...(item.attributes ?? item.span.attributes) };
  let longest: string | undefined;
  for (const key in attributes) {
    const value = attributes[key];
    if (typeof value === "string" && (longest === undefined || value.length > (attributes[longest] as string).length))
      longest = key;
  }
  if (longest === undefined) return false;
  const value = attributes[longest] as string;
  if (value.length < 2 * CUT_MARKER.length) return false;
  attributes[longest] = cutAtCodePoint(value, Math.floor(value.length / 2)) + CUT_MARKER;
  item.attributes = attributes;
  return true;
}

/**
 * Hands a batch to a user-supplied exporter, with the exported attributes and tracing suppressed, bounded in time;
 * stops waiting for it when `signal` aborts (at shutdown), whether or not the exporter ever calls back.
 */
function exportThrough(
  exporter: SpanExporterLike,
  batch: OutgoingSpan[],
  limitMs: number,
  signal: AbortSignal,
): Promise<SendOutcome<OutgoingSpan>> {
  const spans = batch.map(({ span, attributes }) =>
    attributes === undefined || attributes === span.attributes
      ? span
      : (Object.create(span, { attributes: { value: attributes } }) as ReadableSpan),
  );
  const failed = (detail: string) => failedOutcome<OutgoingSpan>(batch.length, `the exporter failed: ${detail}`);
  return new Promise((resolve) => {
    const settle = (outcome: SendOutcome<OutgoingSpan>) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = () =>
      settle({
        delivered: 0,
        retry: {
          items: batch,
          fault: { kind: "aborted", description: "the exporter had not called back at shutdown" },
        },
      });
    const timer = setTimeout(() => settle(failed(`no result within ${limitMs} ms`)), limitMs);
    // The limit only gives up on the exporter; the exporter's own requests keep the process alive if they must.
    (timer as { unref?: () => void }).unref?.();
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      // As OpenTelemetry's BatchSpanProcessor does: the exporter's own requests are not traced (else an
      // instrumented http or fetch would turn each export into spans to export).
      suppressed(() =>
        exporter.export(spans, (result) =>
          settle(result?.code === 0 ? { delivered: batch.length } : failed(result?.error?.message ?? "code 1")),
        ),
      );
    } catch (error) {
      settle(failed(describeError(error)));
    }
  });
}

/**
 * The spill directory, when `spillDir` (or SVC_SPILL_DIR) names one on a server runtime: a batch is written with its
 * usage, enriched (masked, media replaced) and encoded as its request body, and sent again to the same endpoint with
 * the processor's current keys. Undefined without a directory, without a disk, and with a custom `exporter` (whose
 * wire format the processor does not know).
 */
export function spanSpill(
  config: ProcessorConfig,
  usage: UsageStage,
  enrich: EnrichStage,
  exporter: ExportStage,
): Spill<OutgoingSpan> | undefined {
  const settings = spillSettings(PROCESSOR_NAME, config);
  if (settings === undefined) return undefined;
  if (config.exporter || config.cannotSend) {
    const why = config.exporter ? "with a custom exporter" : "when no span can be sent";
    getGlobalLogger().warn(
      `${PROCESSOR_NAME}: spillDir (SVC_SPILL_DIR) is ignored ${why}; spans that do not fit in the queue are dropped and counted`,
    );
    return undefined;
  }
  return new Spill<OutgoingSpan>(settings, {
    identity: `${config.endpoint} ${config.publicKey ?? ""}`,
    encode: async (batch) => {
      // As when the batch is sent: nothing the mask removes reaches the disk.
      usage.stamp(batch);
      await enrich.enrich(batch);
      const { bytes, headers } = await exporter.encode(batch);
      const header = { contentType: headers["content-type"] ?? "application/json" };
      const encoding = headers["content-encoding"];
      return { body: bytes, header: encoding ? { ...header, contentEncoding: encoding } : header };
    },
    send: async (body, header, count, signal) => {
      const headers: Record<string, string> = { ...config.headers, "content-type": header.contentType };
      if (header.contentEncoding) headers["content-encoding"] = header.contentEncoding;
      const result = await exporter.post(body, headers, signal);
      return outcomeOf(
        result,
        Array.from({ length: count }, (_, i) => i),
        "POST",
      );
    },
  });
}
