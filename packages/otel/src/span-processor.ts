import { type Context, type SpanContext, TraceFlags } from "@opentelemetry/api";
import {
  BatchQueue,
  countProcessorStart,
  type DeliveryHealth,
  describeError,
  type ExitWatch,
  getGlobalLogger,
  MediaUploader,
  type ProcessorProbe,
  type ReadableSpan,
  RepeatLog,
  registerProcessorProbe,
  serverOf,
  settleWithin,
  traceSampler,
  watchQueueForExit,
} from "@svc/core";
import { PROCESSOR_NAME, type ProcessorConfig, resolveProcessorConfig, type SvcSpanProcessorParams } from "./config.js";
import { spanSizeEstimator } from "./internal/span-size.js";
import { EnrichStage, type OutgoingSpan } from "./pipeline/enrich.js";
import { ExportStage, spanSpill } from "./pipeline/export.js";
import { FilterStage } from "./pipeline/filter.js";
import { type StartedSpan, StartStage } from "./pipeline/start.js";
import { UsageStage } from "./pipeline/usage.js";

/** The counts of {@link SvcSpanProcessor.health}: those of its export queue, and the spans its filter left out. */
export interface SpanProcessorHealth extends DeliveryHealth {
  /** Ended spans, sampled in, that the export filter left out; grows only. */
  filteredOut: number;
}

/** Time a custom exporter's `forceFlush()` or `shutdown()` gets past the flush deadline, when the flush took it all. */
const EXPORTER_CALL_GRACE_MS = 500;
/** Probe spans remembered until they end; a probe is made at most once per tracer, and by each doctor run. */
const MAX_CLAIMED = 64;

/**
 * OpenTelemetry span processor that sends svc observations (and LLM spans of other instrumentation) to the svc server
 * over OTLP/HTTP; it never throws into application code. A span of a trace that `sampleRate` (or a sampler) leaves
 * out is only counted; any other is stamped at start (environment, release, propagated attributes, the app-root mark),
 * filtered and queued at its end (bounded in count and bytes), and enriched (mask, media) and exported when its batch
 * is sent. Failed batches stay queued and are retried with backoff.
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
  readonly #config: ProcessorConfig;
  /** Whether a sampled span's trace is within `sampleRate`: the decision is per trace id, so a trace is kept whole. */
  readonly #keepsTrace: (traceId: string) => boolean;
  readonly #start: StartStage;
  readonly #filter: FilterStage;
  readonly #usage = new UsageStage();
  readonly #enrich: EnrichStage;
  readonly #export: ExportStage;
  readonly #queue: BatchQueue<OutgoingSpan>;
  /** A span's estimated size once encoded, what it counts against `maxQueueBytes` (0 if the estimate fails). */
  readonly #sizeOf: (span: ReadableSpan) => number;
  readonly #uploader: MediaUploader | undefined;
  readonly #repeats = new RepeatLog();
  // Held here: the exit hooks and the doctor's list of probes hold them only weakly.
  readonly #exit: ExitWatch;
  readonly #probe: ProcessorProbe;
  #flushing = 0;
  #starts = 0;
  /** Probe spans claimed (`traceId-spanId`): dropped without a word when they end. */
  readonly #claimed = new Set<string>();
  #shutdown: Promise<void> | undefined;

  /**
   * Creates the processor. Never throws: missing keys, an invalid base URL and invalid options are logged.
   * @param env Where `SVC_*` and `OTEL_*` settings are read from; `process.env` by default (pass your runtime's
   * bindings where there is no `process`).
   */
  constructor(params: SvcSpanProcessorParams = {}, env?: Record<string, string | undefined>) {
    const config = resolveProcessorConfig(params, env);
    this.#config = config;
    this.#keepsTrace = traceSampler(config.sampleRate);
    this.#filter = new FilterStage(config.shouldExportSpan, this.#repeats);
    this.#start = new StartStage(config, (span) => this.#filter.expects(span), this.#filter.acceptedAtStartStands);
    this.#uploader =
      config.mediaUploadEnabled && !config.cannotSend
        ? new MediaUploader({
            baseUrl: config.baseUrl,
            headers: config.apiHeaders,
            timeoutMs: config.timeoutMs,
            background: true,
          })
        : undefined;
    this.#enrich = new EnrichStage(config.mask, this.#uploader, config.timeoutMs, this.#repeats);
    this.#export = new ExportStage(config, () => this.#flushing > 0);
    this.#sizeOf = spanSizeEstimator(config.protocol);
    this.#queue = new BatchQueue<OutgoingSpan>({
      owner: PROCESSOR_NAME,
      items: "spans",
      flushAt: config.flushAt,
      flushIntervalMs: config.flushIntervalMs,
      maxBatchItems: config.flushAt,
      maxBatchBytes: Math.max(1, Math.floor(config.maxRequestBytes / 2)),
      maxQueueItems: config.maxQueueSize,
      maxQueueBytes: config.maxQueueBytes,
      maxConcurrent: config.maxConcurrentExports,
      immediate: config.exportMode === "immediate",
      server: config.exporter || config.cannotSend ? undefined : serverOf(config.endpoint),
      meterProvider: config.meterProvider,
      attemptTimeoutMs: config.timeoutMs,
      spill: spanSpill(config, this.#usage, this.#enrich, this.#export),
      send: async (batch, signal, live) => {
        this.#usage.stamp(batch);
        await this.#enrich.enrich(batch, signal);
        return this.#export.send(batch, signal, live);
      },
    });
    this.#exit = watchQueueForExit(this.#queue, config.flushOnExit, () => this.forceFlush());
    this.#probe = {
      endpoint: config.exporter ? "a custom exporter" : config.endpoint,
      compression: config.compression,
      protocol: config.protocol,
      publicKey: config.publicKey,
      cannotSend: config.cannotSend,
      health: () => this.health(),
      filteredOut: () => this.#filter.filteredOut(),
      starts: () => this.#starts,
      claims: (span) => {
        if (!this.#start.onEnd(span)) return false;
        // Ended by the caller (the no-processor probe) or never (the doctor's): never exported either way.
        if (this.#claimed.size >= MAX_CLAIMED) this.#claimed.clear();
        this.#claimed.add(`${span.traceId}-${span.spanId}`);
        return true;
      },
    };
    registerProcessorProbe(this.#probe);
  }

  /** Stamps environment, release and propagated attributes on a starting span, and marks app roots. */
  onStart(span: StartedSpan, parentContext: Context): void {
    countProcessorStart();
    this.#starts++;
    if (this.#shutdown) return;
    try {
      if (this.#keeps(span.spanContext())) this.#start.onStart(span, parentContext);
    } catch (error) {
      const kind = `${PROCESSOR_NAME}: onStart failed; the span is left as it was`;
      this.#repeats.warn(kind, `${kind}: ${describeError(error)}`);
    }
  }

  /** Filters and queues an ended span; masking, media handling and export run later, off the caller's path. */
  onEnd(span: ReadableSpan): void {
    try {
      const spanContext = span.spanContext();
      if (this.#claimed.size > 0 && this.#claimed.delete(`${spanContext.traceId}-${spanContext.spanId}`)) return;
      // A span expected at its start was sampled then (per trace, so it stands), and the default filter's yes then
      // stands too; a custom filter is asked again, on the ended span.
      const expected = this.#start.onEnd(spanContext);
      if (!expected && !this.#keeps(spanContext)) {
        this.#queue.drop("sampledOut", 1, "their traces are outside sampleRate, or a sampler did not sample them");
        return;
      }
      if (this.#shutdown)
        this.#queue.drop("shutdown", 1, `span "${span.name}" ended after shutdown() and is not exported`);
      else if ((expected && this.#filter.acceptedAtStartStands) || this.#filter.accepts(span)) {
        // Wrapped only once the queue takes it. Once nearly every wrapper made here lived long (a queue filling up), V8
        // makes the next ones in the old generation: a wrapper made for a span the full queue drops would keep the span
        // and its text alive until a full collection, and a busy collector let the heap grow to several times the queue.
        const item = this.#queue.offer(this.#sizeOf(span), () => ({ span }));
        this.#usage.onEnd(span, item);
      } else this.#usage.onFilteredOut(span);
    } catch (error) {
      const kind = `${PROCESSOR_NAME}: onEnd failed; span not exported`;
      this.#repeats.error(kind, `${kind}: "${String(span?.name)}": ${describeError(error)}`);
    }
  }

  /**
   * Resolves when every span that ended before this call has been exported or dropped, or after `flushTimeout`
   * whatever the server does; spans still queued then stay queued. Never rejects.
   */
  async forceFlush(): Promise<void> {
    const deadline = Date.now() + this.#config.flushTimeoutMs;
    await this.#drain(false, deadline);
    const exporter = this.#config.exporter;
    if (exporter?.forceFlush) await this.#callExporter("forceFlush", () => exporter.forceFlush?.(), deadline);
  }

  /**
   * Flushes, within `flushTimeout`, then stops: what is still undelivered is counted in one log line, and spans
   * that end afterwards are dropped and counted. Leaves no timer or socket that keeps the process alive. Safe to
   * call more than once.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#shutdownOnce();
    return this.#shutdown;
  }

  /** Counts of the export queue (queued, in flight, sent, dropped by reason, retries, the last error) and of the filter. */
  health(): SpanProcessorHealth {
    return { ...this.#queue.health(), filteredOut: this.#filter.filteredOut().spans };
  }

  /** Whether a span goes through the pipeline: sampled by OpenTelemetry, and its trace within `sampleRate`. */
  #keeps(context: SpanContext): boolean {
    return (context.traceFlags & TraceFlags.SAMPLED) !== 0 && this.#keepsTrace(context.traceId);
  }

  async #shutdownOnce(): Promise<void> {
    const deadline = Date.now() + this.#config.flushTimeoutMs;
    await this.#drain(true, deadline);
    this.#exit.unwatch();
    const exporter = this.#config.exporter;
    if (exporter) await this.#callExporter("shutdown", () => exporter.shutdown(), deadline);
  }

  /** Calls the custom exporter's `forceFlush()` or `shutdown()`, waits until `deadline` (and a grace), logs a failure. */
  async #callExporter(method: string, call: () => unknown, deadline: number): Promise<void> {
    const timeoutMs = Math.max(deadline - Date.now(), 0) + EXPORTER_CALL_GRACE_MS;
    const settled = await settleWithin(call, { timeoutMs });
    if (settled.kind === "error")
      getGlobalLogger().warn(`${PROCESSOR_NAME}: exporter.${method}() failed: ${describeError(settled.error)}`);
    else if (settled.kind === "timeout")
      getGlobalLogger().warn(
        `${PROCESSOR_NAME}: exporter.${method}() did not settle within ${timeoutMs} ms (flushTimeout); no longer waited for`,
      );
  }

  async #drain(final: boolean, deadline: number): Promise<void> {
    this.#flushing++;
    try {
      this.#export.wake();
      const result = final ? await this.#queue.shutdown(deadline) : await this.#queue.flush(deadline);
      if (result.pending > 0 && !final)
        getGlobalLogger().warn(this.#queue.gaveUpLine("forceFlush()", this.#config.flushTimeoutMs, result));
      await this.#uploader?.settled(deadline);
    } finally {
      this.#flushing--;
      this.#repeats.report({ dueOnly: !final });
    }
  }
}
