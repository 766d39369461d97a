import type { Attributes } from "@opentelemetry/api";
import {
  getGlobalLogger,
  PROVIDER_OWN_TRACING,
  providerOwnTracing,
  type ReadableSpan,
  readGenAiType,
  readUsageDetails,
  SVC_TRACER_NAME,
  SvcOtelSpanAttributes,
} from "@svc/core";
import { PROCESSOR_NAME } from "../config.js";
import { scopeName } from "../span-filter.js";
import type { OutgoingSpan } from "./enrich.js";

/** Most spans remembered as having a counted model call below them; the oldest is forgotten first. */
const MAX_MARKED = 10_000;

const USAGE_KEY = SvcOtelSpanAttributes.OBSERVATION_USAGE_DETAILS;
const TYPE_KEY = SvcOtelSpanAttributes.OBSERVATION_TYPE;

/**
 * The usage stage: writes the usage of other instrumentation's spans as the SDK's explicit usage attribute, which the
 * server takes as it is, so that it stores what the test kit and the dev server show (read as `genai-usage.ts` reads
 * it), and counts each model call once:
 * - a span whose usage repeats that of an exported model call below it (a generation wrapping the client's own, an
 *   agent summing its calls) is given an empty usage: the call nearest to the wire, with the most detail, counts;
 * - once a provider SDK's own tracing has been seen (the Anthropic SDK), another instrumentation's span of that
 *   client's calls is given an empty usage, and one warning says how to keep one of the two.
 * A parent's usage is decided when its batch is sent: a call that ends after that (a stream read after the span around
 * it ended) is counted twice, unless the own-tracing rule covers it. svc's own spans and explicit usage are left as is.
 */
export class UsageStage {
  /** `traceId:spanId` of spans with a counted model call below them. */
  readonly #marked = new Set<string>();
  /** Providers whose SDK's own tracing has been seen, and whether the overlap has been logged. */
  readonly #ownTracingSeen = new Map<string, boolean>();

  /**
   * Reads the usage of a span the filter let through, at its end, into `item` (the span as queued; undefined when the
   * queue dropped it), and marks its parent when it is a counted model call.
   */
  onEnd(span: ReadableSpan, item: OutgoingSpan | undefined): void {
    const a = span.attributes;
    const scope = scopeName(span);
    const own = scope === SVC_TRACER_NAME;
    const explicit = a[USAGE_KEY] !== undefined;
    // svc's own spans are read from their own attributes only: no GenAI reading on the path of every observation.
    const usage = own || explicit ? undefined : readUsageDetails(scope, a);
    if (usage !== undefined) {
      const repeats = this.#repeatsOwnTracing(scope);
      if (item !== undefined) {
        item.usage = JSON.stringify(usage);
        item.repeatsOwnTracing = repeats;
      }
    }
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

  /** Gives each span of a batch about to leave (sent or spilled) its usage attributes, once. */
  stamp(batch: readonly OutgoingSpan[]): void {
    for (const item of batch) if (item.attributes === undefined) item.extra ??= this.extraAttributes(item);
  }

  /** The attributes to add to a span of a batch about to be sent: its usage, or none when a call below counts it. */
  extraAttributes(item: OutgoingSpan): Attributes | undefined {
    const repeats = this.#marked.size > 0 && this.#marked.delete(keyOf(item.span));
    if (item.usage === undefined) return undefined;
    const provider = item.repeatsOwnTracing;
    const ownCounts = provider !== undefined && this.#ownTracingSeen.has(provider);
    if (ownCounts) this.#warnOverlap(provider, scopeName(item.span));
    return { [USAGE_KEY]: repeats || ownCounts ? "{}" : item.usage };
  }

  /** The provider whose SDK's own tracing may record the call of a span from `scope`; notes that tracing when seen. */
  #repeatsOwnTracing(scope: string): string | undefined {
    const match = providerOwnTracing(scope);
    if (match === undefined) return undefined;
    if (!match.own) return match.provider;
    if (!this.#ownTracingSeen.has(match.provider)) this.#ownTracingSeen.set(match.provider, false);
    return undefined;
  }

  /** Says once per provider that two instrumentations record its calls, and which one is counted. */
  #warnOverlap(provider: string, scope: string): void {
    if (this.#ownTracingSeen.get(provider) !== false) return;
    this.#ownTracingSeen.set(provider, true);
    const off = PROVIDER_OWN_TRACING.find((p) => p.provider === provider)?.off;
    getGlobalLogger().warn(
      `${PROCESSOR_NAME}: the ${provider} SDK's own tracing and "${scope}" both record each ${provider} call; svc ` +
        `counts the usage on the SDK's own spans and none on the other's. To keep one of the two, set ${off} or ` +
        `remove "${scope}".`,
    );
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
