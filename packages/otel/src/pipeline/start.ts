import { type Attributes, type AttributeValue, type Context, type SpanContext, trace } from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A, getPropagatedAttributes, hasTraceIdClaim, SVC_TRACER_NAME } from "@svc/core";
import type { ProcessorConfig } from "../config.js";

/** The parts of a just-started OpenTelemetry span that the processor reads and writes. */
export interface StartedSpan {
  readonly name: string;
  spanContext(): SpanContext;
  readonly attributes?: Attributes;
  readonly instrumentationScope?: { readonly name: string };
  /** Older SDKs name the scope this way. */
  readonly instrumentationLibrary?: { readonly name: string };
  readonly parentSpanContext?: SpanContext | undefined;
  setAttribute(key: string, value: AttributeValue): unknown;
  /** Older SDKs name the parent this way. */
  readonly parentSpanId?: string | undefined;
}

const NO_ATTRIBUTES: Attributes = Object.freeze({});

/** Open spans remembered for the app-root check at most; the oldest are forgotten first. */
const MAX_OPEN_SPANS = 100_000;

/**
 * The start stage: stamps propagated attributes, environment and release on a starting span, and marks as the app's
 * root in its trace (`svc.internal.is_app_root`) a span expected to be exported whose parent is no open span expected
 * to be exported, and whose context carries no claim that svc already holds the root of this trace.
 */
export class StartStage {
  readonly #open = new OpenSpans();

  /**
   * `acceptedAtStartStands`, the filter's flag (true for the default filter): every span of svc's own tracer is then
   * expected, without asking the filter.
   */
  constructor(
    private readonly config: ProcessorConfig,
    private readonly expectedToExport: (span: StartedSpan) => boolean,
    private readonly acceptedAtStartStands = false,
  ) {}

  onStart(span: StartedSpan, parentContext: Context): void {
    const attributes = span.attributes ?? NO_ATTRIBUTES;
    const svcSpan = (span.instrumentationScope ?? span.instrumentationLibrary)?.name === SVC_TRACER_NAME;
    if (!svcSpan) stampPropagated(span, attributes, parentContext); // svc spans carry them from creation
    const { environment, release } = this.config;
    if (environment !== undefined && attributes[A.ENVIRONMENT] === undefined)
      span.setAttribute(A.ENVIRONMENT, environment);
    if (release !== undefined && attributes[A.RELEASE] === undefined) span.setAttribute(A.RELEASE, release);
    if ((svcSpan && this.acceptedAtStartStands) || this.expectedToExport(span)) this.#markAppRoot(span, parentContext);
  }

  /** Forgets an ended span; true when it was open and expected to be exported. */
  onEnd(context: SpanContext): boolean {
    return this.#open.delete(context.traceId, context.spanId);
  }

  /** Remembers a span expected to be exported, and marks it when it is the application's root. */
  #markAppRoot(span: StartedSpan, parentContext: Context): void {
    const own = span.spanContext();
    const parent = parentOf(span, parentContext);
    const parentExpected = parent !== undefined && this.#open.has(parent.traceId, parent.spanId);
    this.#open.add(own.traceId, own.spanId);
    if (!parentExpected && !hasTraceIdClaim(parentContext, own.traceId)) span.setAttribute(A.IS_APP_ROOT, true);
  }
}

/**
 * Open spans expected to be exported, oldest first, at most `max`. Keyed by the span id string, which V8 hashes once
 * (a key joined from both ids was built and hashed at every start and end); span ids that repeat across traces (a
 * custom id generator) are kept apart.
 */
export class OpenSpans {
  /** Span id to the trace id of the open span, or to the trace ids when several open spans share the span id. */
  readonly #bySpanId = new Map<string, string | Set<string>>();
  #size = 0;

  constructor(private readonly max = MAX_OPEN_SPANS) {}

  get size(): number {
    return this.#size;
  }

  has(traceId: string, spanId: string): boolean {
    const found = this.#bySpanId.get(spanId);
    return found === traceId || (typeof found === "object" && found.has(traceId));
  }

  add(traceId: string, spanId: string): void {
    const found = this.#bySpanId.get(spanId);
    if (found === traceId || (typeof found === "object" && found.has(traceId))) return;
    // Spans that never end must not grow the set without bound.
    if (this.#size >= this.max) this.#forgetOldest();
    if (found === undefined) this.#bySpanId.set(spanId, traceId);
    else if (typeof found === "string") this.#bySpanId.set(spanId, new Set([found, traceId]));
    else found.add(traceId);
    this.#size++;
  }

  /** Forgets an open span; true when it was there. */
  delete(traceId: string, spanId: string): boolean {
    const found = this.#bySpanId.get(spanId);
    if (found === traceId) this.#bySpanId.delete(spanId);
    else if (typeof found !== "object" || !found.delete(traceId)) return false;
    else if (found.size === 0) this.#bySpanId.delete(spanId);
    this.#size--;
    return true;
  }

  #forgetOldest(): void {
    const oldest = this.#bySpanId.entries().next().value;
    if (oldest === undefined) return;
    const [spanId, traceIds] = oldest;
    this.delete(typeof traceIds === "string" ? traceIds : (traceIds.values().next().value ?? ""), spanId);
  }
}

/** The parent's ids: the SDK's `parentSpanContext`, or, for older SDKs that only name its id, the span in context. */
function parentOf(span: StartedSpan, parentContext: Context): { traceId: string; spanId: string } | undefined {
  if (span.parentSpanContext) return span.parentSpanContext;
  if (span.parentSpanId === undefined) return undefined;
  const fromContext = trace.getSpan(parentContext)?.spanContext();
  return fromContext ?? { traceId: span.spanContext().traceId, spanId: span.parentSpanId };
}

function stampPropagated(span: StartedSpan, attributes: Attributes, parentContext: Context): void {
  const propagated = getPropagatedAttributes(parentContext);
  for (const key in propagated) {
    const value = propagated[key];
    if (value !== undefined && attributes[key] === undefined) span.setAttribute(key, value);
  }
}
