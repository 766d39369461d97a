import type { Attributes } from "@opentelemetry/api";
import { readGenAiType, readUsageDetails, SVC_TRACER_NAME, SvcOtelSpanAttributes } from "@svc/core";
import type { ReadableSpan } from "../readable-span.js";
import type { OutgoingSpan } from "./enrich.js";

/** Most spans remembered as having a counted model call below them; the oldest is forgotten first. */
const MAX_MARKED = 10_000;

const USAGE_KEY = SvcOtelSpanAttributes.OBSERVATION_USAGE_DETAILS;
const TYPE_KEY = SvcOtelSpanAttributes.OBSERVATION_TYPE;

/**
 * The usage stage: writes the usage of other instrumentation's spans as the SDK's explicit usage attribute, which
 * the server takes as it is (before its own reading of `gen_ai.usage.*`, `llm.token_count.*` and `ai.usage.*`), so
 * that it stores what the test kit and the dev server show, and counts each model call once:
 *
 * - a span with token counts is given them read as the server reads them, with the cache as a detail of the input
 *   (the spellings and exclusive inputs that the server's own reading gets wrong are read right: `genai-usage.ts`);
 * - a span whose usage repeats that of an exported model call below it (a generation that wraps the client's own, an
 *   agent that sums its calls) is given an empty usage: the call nearest to the wire is the one counted, as it has
 *   the most detail (the Anthropic SDK's own span has the cache counts that Traceloop's span around it lacks).
 *
 * A model call is known at its end, its parent's usage is decided when the parent's batch is sent: a call that ends
 * after its parent's batch has gone is counted twice (a stream read after the span around it ended). svc's own spans
 * and spans with an explicit usage are left as they are.
 */
export class UsageStage {
  /** `traceId:spanId` of spans with a counted model call below them. */
  readonly #marked = new Set<string>();

  /** Reads an exported span's usage at its end, and marks its parent when it is a counted model call. */
  onEnd(item: OutgoingSpan): void {
    const { span } = item;
    const a = span.attributes;
    const scope = span.instrumentationScope?.name ?? span.instrumentationLibrary?.name ?? "";
    const own = scope === SVC_TRACER_NAME;
    const explicit = a[USAGE_KEY] !== undefined;
    // svc's own spans are read from their own attributes only: no GenAI reading on the path of every observation.
    const usage = own || explicit ? undefined : readUsageDetails(scope, a);
    if (usage !== undefined) item.usage = JSON.stringify(usage);
    let counted = false;
    if (explicit || usage !== undefined) {
      const declared = typeof a[TYPE_KEY] === "string" ? (a[TYPE_KEY] as string).toLowerCase() : undefined;
      const type = declared ?? (own ? undefined : readGenAiType(a));
      counted = type === "generation" || type === "embedding";
    }
    this.#pass(span, counted);
  }

  /** A span the filter left out is not counted, but passes on the mark of a model call below it to its parent. */
  onFilteredOut(span: ReadableSpan): void {
    if (this.#marked.size === 0) return;
    this.#pass(span, false);
    this.#marked.delete(keyOf(span));
  }

  /** The attributes to add to a span of a batch about to be sent: its usage, or none when a call below counts it. */
  extraAttributes(item: OutgoingSpan): Attributes | undefined {
    const repeats = this.#marked.size > 0 && this.#marked.delete(keyOf(item.span));
    if (item.usage === undefined) return undefined;
    return { [USAGE_KEY]: repeats ? "{}" : item.usage };
  }

  #pass(span: ReadableSpan, counted: boolean): void {
    if (!counted && this.#marked.size === 0) return; // the common case: no model call below anything open
    const parent = parentKeyOf(span);
    if (parent !== undefined && (counted || this.#marked.has(keyOf(span)))) this.#mark(parent);
  }

  #mark(key: string): void {
    if (this.#marked.has(key)) return;
    if (this.#marked.size >= MAX_MARKED) {
      const oldest = this.#marked.values().next().value;
      if (oldest !== undefined) this.#marked.delete(oldest);
    }
    this.#marked.add(key);
  }
}

function keyOf(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  return `${traceId}:${spanId}`;
}

function parentKeyOf(span: ReadableSpan): string | undefined {
  // Older SDKs name only the parent's id.
  const parentId = span.parentSpanContext?.spanId ?? (span as { parentSpanId?: string }).parentSpanId;
  return parentId ? `${span.spanContext().traceId}:${parentId}` : undefined;
}
