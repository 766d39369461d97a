// What both OTLP encodings (JSON and protobuf) read from a batch of ended spans: the span's shape, the spans grouped
// by resource and scope, in the order the request lists them, and the span flags.

import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from "@opentelemetry/api";

/** The parts of an ended span the processor reads, structural so both OpenTelemetry JS SDK lines (2.x, 3.x) fit. */
export interface ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  spanContext(): SpanContext;
  readonly parentSpanContext?: SpanContext | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links: Link[];
  readonly events: ReadonlyArray<{
    name: string;
    attributes?: Attributes;
    time: HrTime;
    droppedAttributesCount?: number;
  }>;
  readonly duration: HrTime;
  readonly ended: boolean;
  readonly resource: { readonly attributes: Attributes };
  readonly instrumentationScope?: { readonly name: string; readonly version?: string; readonly schemaUrl?: string };
  /** Older SDKs name the scope this way. */
  readonly instrumentationLibrary?: { readonly name: string; readonly version?: string };
  readonly droppedAttributesCount?: number;
  readonly droppedEventsCount?: number;
  readonly droppedLinksCount?: number;
}

/** A span queued for export, with the attributes to send (masked or media-rewritten when they differ). */
export interface ExportItem {
  span: ReadableSpan;
  attributes: Attributes;
}

/** An instrumentation scope, as either OpenTelemetry SDK line records it on a span. */
export interface Scope {
  name: string;
  version?: string | undefined;
  schemaUrl?: string | undefined;
  attributes?: Attributes;
  droppedAttributesCount?: number;
}

/** The resource of a span, as either OpenTelemetry SDK line records it. */
export interface ResourceLike {
  attributes: Attributes;
  schemaUrl?: string;
}

/** The spans of one resource, by scope. */
export interface ResourceGroup {
  resource: ResourceLike;
  scopes: { scope: Scope; items: ExportItem[] }[];
}

const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const NO_SCOPE: Scope = { name: "" };

/** The scope a span was created with, on both SDK lines. */
function spanScope(span: ReadableSpan): Scope {
  return (span.instrumentationScope ?? span.instrumentationLibrary ?? NO_SCOPE) as Scope;
}

/** Spans grouped by resource (by identity), then by scope (name, version and schema URL), in first-seen order. */
export function groupByResourceAndScope(items: readonly ExportItem[]): ResourceGroup[] {
  const byResource = new Map<ResourceLike, Map<string, ExportItem[]>>();
  for (const item of items) {
    const resource = item.span.resource as ResourceLike;
    const byScope = byResource.get(resource) ?? new Map<string, ExportItem[]>();
    byResource.set(resource, byScope);
    const scope = spanScope(item.span);
    const key = `${scope.name}@${scope.version || ""}:${scope.schemaUrl || ""}`;
    const list = byScope.get(key);
    if (list) list.push(item);
    else byScope.set(key, [item]);
  }
  return [...byResource].map(([resource, byScope]) => ({
    resource,
    scopes: [...byScope.values()].map((list) => ({ scope: spanScope((list[0] as ExportItem).span), items: list })),
  }));
}

/** The OTLP `flags` of a span or link: the W3C trace flags, and whether the parent or linked span is remote. */
export function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}
