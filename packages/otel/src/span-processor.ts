import { type Attributes, type AttributeValue, type Context, type SpanContext, trace } from "@opentelemetry/api";
import {
  getGlobalLogger,
  getPropagatedAttributes,
  hasTraceIdClaim,
  RepeatLog,
  reportRepeatedLogs,
  SvcOtelSpanAttributes,
} from "@svc/tracing";
import {
  resolveProcessorConfig,
  type SpanExporterLike,
  type SvcSpanProcessorConfig,
  type SvcSpanProcessorParams,
} from "./config.js";
import { DropCounter } from "./internal/drop-counter.js";
import { Limiter } from "./internal/limiter.js";
import {
  describe,
  type PreparedBody,
  postOtlpBody,
  prepareOtlpBody,
  RETRY_WINDOW_MS,
  type SendResult,
} from "./internal/otlp-http.js";
import { type ExportItem, encodeTraceRequestPieces } from "./internal/otlp-json.js";
import { prepareSpanData } from "./internal/span-data.js";
import type { MediaUpload } from "./media/media-upload.js";
import { uploadMedia } from "./media/media-upload.js";
import { type MediaCandidate, replaceMedia } from "./media/span-media.js";
import type { ReadableSpan } from "./readable-span.js";
import { isDefaultExportSpan } from "./span-filter.js";

/** The parts of a just-started OpenTelemetry span that the processor reads and writes. */
export interface StartedSpan {
  spanContext(): SpanContext;
  setAttribute(key: string, value: AttributeValue): unknown;
  readonly attributes?: Attributes;
  readonly instrumentationScope?: { readonly name: string };
  readonly instrumentationLibrary?: { readonly name: string };
  readonly parentSpanContext?: SpanContext | undefined;
  /** Older SDKs name the parent this way. */
  readonly parentSpanId?: string | undefined;
}

const SVC_SCOPE = "svc-sdk";
const NAME = "SvcSpanProcessor";
/** Batches encoded and compressed at the same time while a flush waits for them (one otherwise). */
const FLUSH_ENCODING_CONCURRENCY = Math.max(
  2,
  Math.min(4, (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2),
);
/** Media uploads in flight at the same time; the others wait. */
const MAX_CONCURRENT_UPLOADS = 8;

/**
 * OpenTelemetry span processor that sends svc observations (and LLM spans of other instrumentation)
 * to the svc server over OTLP/HTTP. It never throws into application code.
 *
 * @example
 * ```ts
 * import { NodeSDK } from "@opentelemetry/sdk-node";
 * import { SvcSpanProcessor } from "@svc/otel";
 *
 * const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
 * sdk.start();
 * // ... on exit:
 * await sdk.shutdown();
 * ```
 */
export class SvcSpanProcessor {
  readonly #config: SvcSpanProcessorConfig;
  readonly #log = getGlobalLogger();
  /** Ended spans waiting for export; masking and media handling happen when their batch is sent. */
  #queue: ReadableSpan[] = [];
  /** Spans ever queued, spans ever taken out of the queue, and how far the queue must be emptied now. */
  #enqueued = 0;
  #dispatched = 0;
  #drainTarget = 0;
  #active = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #shutdown: Promise<void> | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  /** forceFlush() and shutdown() calls under way. */
  #flushing = 0;
  /**
   * Batches being encoded and compressed: one at a time while the application runs, so export work takes
   * one thread-pool thread beside it; more while a flush waits for them.
   */
  readonly #encoding = new Limiter(() => (this.#flushing > 0 ? FLUSH_ENCODING_CONCURRENCY : 1));
  readonly #uploads = new Map<string, Promise<void>>();
  readonly #uploadSlots = new Limiter(MAX_CONCURRENT_UPLOADS);
  /**
   * Span contexts of the spans that passed the filter at start and have not ended, for the app-root check.
   * Held weakly: a span that never ends does not stay in memory for it.
   */
  readonly #openSpans = new WeakSet<SpanContext>();
  readonly #queueDrops = new DropCounter(`${NAME}: export queue full`);
  readonly #exportDrops = new DropCounter(`${NAME}: export failed`);
  readonly #lateDrops = new DropCounter(`${NAME}: span ended after shutdown`);
  readonly #repeats = new RepeatLog();

  /**
   * Creates the processor. Missing keys are logged, not thrown.
   * @param env Where `SVC_*` and `OTEL_EXPORTER_OTLP_*` settings are read from; `process.env` by default
   * (pass your runtime's bindings where there is no `process`).
   * @throws {TypeError} when an option has the wrong type (a programming error).
   */
  constructor(params: SvcSpanProcessorParams = {}, env?: Record<string, string | undefined>) {
    this.#config = resolveProcessorConfig(params, env);
  }

  /** Stamps environment, release and propagated attributes on a starting span, and marks app roots. */
  onStart(span: StartedSpan, parentContext: Context): void {
    try {
      this.#start(span, parentContext);
    } catch (error) {
      const message = `${NAME}: onStart failed; the span is left as it was: ${describe(error)}`;
      this.#repeats.warn(`${NAME}: onStart failed`, message);
    }
  }

  /** Filters and queues an ended span; masking and media handling run later, off the caller's path. */
  onEnd(span: ReadableSpan): void {
    try {
      this.#end(span);
    } catch (error) {
      const message = `${NAME}: onEnd failed; span "${String(span?.name)}" is not exported: ${describe(error)}`;
      this.#repeats.error(`${NAME}: onEnd failed`, message);
    }
  }

  /** Resolves when every span that ended before this call has been exported or has definitively failed. */
  async forceFlush(): Promise<void> {
    await this.#flushAll();
    const exporter = this.#config.exporter;
    if (exporter?.forceFlush)
      await Promise.resolve()
        .then(() => exporter.forceFlush?.())
        .catch((e: unknown) => this.#warn("exporter.forceFlush", e));
  }

  /** Flushes, then stops; spans that end afterwards are counted as dropped. Safe to call more than once. */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#shutdownOnce();
    return this.#shutdown;
  }

  async #shutdownOnce(): Promise<void> {
    await this.#flushAll();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const exporter = this.#config.exporter;
    if (exporter)
      await Promise.resolve()
        .then(() => exporter.shutdown())
        .catch((e: unknown) => this.#warn("exporter.shutdown", e));
  }

  #start(span: StartedSpan, parentContext: Context): void {
    if (this.#shutdown) return;
    const attributes = span.attributes ?? {};
    const isSvc = (span.instrumentationScope ?? span.instrumentationLibrary)?.name === SVC_SCOPE;
    if (!isSvc) {
      // Spans of the svc tracer carry the propagated attributes from creation.
      const propagated = getPropagatedAttributes(parentContext);
      for (const key in propagated) {
        const value = propagated[key];
        if (value !== undefined && attributes[key] === undefined) span.setAttribute(key, value);
      }
    }
    const { environment, release } = this.#config;
    if (environment !== undefined && attributes[SvcOtelSpanAttributes.ENVIRONMENT] === undefined)
      span.setAttribute(SvcOtelSpanAttributes.ENVIRONMENT, environment);
    if (release !== undefined && attributes[SvcOtelSpanAttributes.RELEASE] === undefined)
      span.setAttribute(SvcOtelSpanAttributes.RELEASE, release);
    this.#markAppRoot(span, parentContext);
  }

  #markAppRoot(span: StartedSpan, parentContext: Context): void {
    if (!this.#shouldExport(span as unknown as ReadableSpan, true)) return;
    const own = span.spanContext();
    // The SDK hands a child the very span context object of its parent; older SDKs only name the parent's id.
    const parent =
      span.parentSpanContext ??
      (span.parentSpanId === undefined ? undefined : trace.getSpan(parentContext)?.spanContext());
    const parentExpected = parent !== undefined && this.#openSpans.has(parent);
    this.#openSpans.add(own);
    if (!parentExpected && !hasTraceIdClaim(parentContext, own.traceId))
      span.setAttribute(SvcOtelSpanAttributes.IS_APP_ROOT, true);
  }

  #end(span: ReadableSpan): void {
    this.#openSpans.delete(span.spanContext());
    if (this.#shutdown) {
      this.#lateDrops.add(1, `"${span.name}" ended after shutdown() and is not exported`);
      return;
    }
    if (!this.#shouldExport(span)) return;
    this.#enqueue(span);
  }

  /** Runs the filter; at start (app-root check) a throw only means "not known to be exported". */
  #shouldExport(span: ReadableSpan, atStart = false): boolean {
    const custom = this.#config.shouldExportSpan;
    if (!custom) return isDefaultExportSpan(span);
    try {
      return custom({ otelSpan: span }) === true;
    } catch (error) {
      if (!atStart) {
        const message = `${NAME}: shouldExportSpan threw; span "${span.name}" is not exported: ${describe(error)}`;
        this.#repeats.error(`${NAME}: shouldExportSpan threw`, message);
      }
      return false;
    }
  }

  readonly #onMaskError = (key: string, error: unknown): void => {
    const message = `${NAME}: mask function failed on ${key}; the value is exported as a fixed marker: ${describe(error)}`;
    this.#repeats.error(`${NAME}: mask function failed`, message);
  };

  /** The batch with the attributes to export: masked, and with media replaced by references. */
  async #prepare(batch: readonly ReadableSpan[]): Promise<ExportItem[]> {
    const { mask, mediaUploadEnabled } = this.#config;
    const withMedia: Promise<void>[] = [];
    const items = batch.map((span): ExportItem => {
      try {
        const { attributes, media } = prepareSpanData(span.attributes, mask, mediaUploadEnabled, this.#onMaskError);
        const item = { span, attributes };
        if (media) withMedia.push(this.#replaceMedia(item, media));
        return item;
      } catch (error) {
        this.#repeats.error(
          `${NAME}: preparing a span failed`,
          `${NAME}: preparing span "${String(span.name)}" failed; exported as is: ${describe(error)}`,
        );
        return { span, attributes: span.attributes };
      }
    });
    if (withMedia.length > 0) await Promise.all(withMedia);
    return items;
  }

  async #replaceMedia(item: ExportItem, media: MediaCandidate[]): Promise<void> {
    const { span } = item;
    const own = item.attributes === span.attributes ? { ...item.attributes } : item.attributes;
    const { traceId, spanId } = span.spanContext();
    try {
      await replaceMedia(own, media, { traceId, observationId: spanId }, (m) => this.#upload(m));
      item.attributes = own;
    } catch (error) {
      this.#log.error(`${NAME}: media handling failed for span "${span.name}"; exported as is: ${describe(error)}`);
    }
  }

  #upload(media: MediaUpload): void {
    // The server links media to each observation and field, so only exact repeats are skipped.
    const key = JSON.stringify([media.mediaId, media.traceId, media.observationId, media.field]);
    if (this.#uploads.has(key)) return;
    const { baseUrl, headers, timeoutMs } = this.#config;
    const uploading = this.#uploadSlots
      .run(() => uploadMedia({ baseUrl, headers, timeoutMs }, media))
      .finally(() => this.#uploads.delete(key));
    this.#uploads.set(key, uploading);
  }

  #enqueue(span: ReadableSpan): void {
    if (this.#queue.length >= this.#config.maxQueueSize) {
      this.#queueDrops.add(1, `${this.#config.maxQueueSize} spans are waiting (raise maxQueueSize)`);
      return;
    }
    this.#queue.push(span);
    this.#enqueued++;
    if (this.#config.exportMode === "immediate") this.#drainTarget = this.#enqueued;
    this.#pump();
  }

  /** Starts export requests while a slot is free and a batch is full or a flush asks for it. */
  #pump(): void {
    const { flushAt, maxConcurrentExports } = this.#config;
    while (
      this.#active < maxConcurrentExports &&
      this.#queue.length > 0 &&
      (this.#queue.length >= flushAt || this.#dispatched < this.#drainTarget)
    ) {
      const batch = this.#queue.splice(0, flushAt);
      this.#dispatched += batch.length;
      this.#active++;
      const sending: Promise<void> = this.#send(batch).finally(() => {
        this.#active--;
        this.#inFlight.delete(sending);
        this.#pump();
      });
      this.#inFlight.add(sending);
    }
    if (this.#queue.length === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#drainTarget = this.#enqueued;
        this.#pump();
      }, this.#config.flushIntervalMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Exports one batch and counts a failure; never rejects. */
  #send(spans: ReadableSpan[]): Promise<void> {
    const count = spans.length;
    return this.#export(spans).then(
      (result) => {
        if (result.ok) this.#log.debug(`${NAME}: exported ${count} span(s)`);
        else this.#exportDrops.add(count, result.reason);
      },
      (error: unknown) => this.#exportDrops.add(count, describe(error)),
    );
  }

  /** Prepares and sends one batch. The spans are let go once encoded: only the request body waits for the server. */
  async #export(spans: ReadableSpan[]): Promise<SendResult> {
    // Leave the caller's span.end() before preparing and serializing.
    await Promise.resolve();
    await waitForResources(spans);
    const batch = await this.#prepare(spans);
    const exporter = this.#config.exporter;
    if (exporter) return exportThrough(exporter, batch, RETRY_WINDOW_MS + this.#config.timeoutMs);
    return this.#encodeAndPost(batch);
  }

  /**
   * Encodes and compresses the batch when its turn comes (uncompressed bodies are large, compressed ones
   * small), then posts it; the posts of several batches overlap.
   */
  async #encodeAndPost(batch: ExportItem[]): Promise<SendResult> {
    let prepared: PreparedBody;
    try {
      prepared = await this.#encoding.run(() => prepareOtlpBody(this.#config, encodeTraceRequestPieces(batch)));
    } catch (error) {
      return { ok: false, reason: `encoding failed: ${describe(error)}` };
    }
    return postOtlpBody(this.#config, prepared);
  }

  async #flushAll(): Promise<void> {
    const target = this.#enqueued;
    this.#drainTarget = Math.max(this.#drainTarget, target);
    this.#flushing++;
    try {
      this.#encoding.wake();
      this.#pump();
      // Each round waits for one request to settle, which frees a slot for the next batch.
      for (let round = 0; this.#dispatched < target && this.#inFlight.size > 0 && round < 1_000_000; round++)
        await Promise.race(this.#inFlight);
      await Promise.allSettled([...this.#inFlight]);
    } finally {
      this.#flushing--;
    }
    await Promise.allSettled([...this.#uploads.values()]);
    this.#queueDrops.report();
    this.#exportDrops.report();
    this.#lateDrops.report();
    reportRepeatedLogs(); // this processor's repeated errors, and those of @svc/tracing and integrations
  }

  #warn(what: string, error: unknown, outcome = ""): void {
    this.#log.warn(`${NAME}: ${what} failed${outcome}: ${describe(error)}`);
  }
}

interface AsyncResource {
  asyncAttributesPending?: boolean;
  waitForAsyncAttributes?: () => Promise<void>;
}

async function waitForResources(batch: readonly ReadableSpan[]): Promise<void> {
  const pending = new Set<AsyncResource>();
  for (const span of batch) {
    const resource = span.resource as AsyncResource;
    if (resource.asyncAttributesPending && resource.waitForAsyncAttributes) pending.add(resource);
  }
  if (pending.size > 0) await Promise.all([...pending].map((r) => r.waitForAsyncAttributes?.()));
}

/** Hands a batch to a user-supplied exporter, with the exported attributes, bounded in time. */
function exportThrough(exporter: SpanExporterLike, batch: readonly ExportItem[], limitMs: number): Promise<SendResult> {
  const spans = batch.map(({ span, attributes }) =>
    attributes === span.attributes
      ? span
      : (Object.create(span, { attributes: { value: attributes } }) as ReadableSpan),
  );
  return new Promise<SendResult>((resolve) => {
    const timer = setTimeout(
      () => resolve({ ok: false, reason: `exporter gave no result within ${limitMs} ms` }),
      limitMs,
    );
    // The limit only gives up on the exporter; the exporter's own requests keep the process alive if they must.
    (timer as { unref?: () => void }).unref?.();
    try {
      exporter.export(spans, (result) => {
        clearTimeout(timer);
        resolve(result.code === 0 ? { ok: true } : { ok: false, reason: result.error?.message ?? "exporter failed" });
      });
    } catch (error) {
      clearTimeout(timer);
      resolve({ ok: false, reason: describe(error) });
    }
  });
}
