// OTLP/JSON encoding of ended spans, field for field and in the key order of the OpenTelemetry JS JSON serializer,
// so bodies are byte-identical to what `@opentelemetry/exporter-trace-otlp-http` sends for the same spans.

import type { Attributes, AttributeValue, HrTime, Link, SpanContext } from "@opentelemetry/api";
import { toBase64 } from "../transport/identity.js";
import { type ExportItem, groupByResourceAndScope, type ResourceLike, type Scope, spanFlags } from "./otlp-request.js";

type AnyValue =
  | { stringValue: string }
  | { intValue: number }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { bytesValue: string }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } }
  | Record<string, never>;

interface KeyValue {
  key: string;
  value: AnyValue;
}

/**
 * Text pieces of about this many characters at most (unless one span alone is longer): small enough to stay
 * ordinary young objects in V8 even as two-byte text, large enough that handing them to zlib costs little.
 */
const PIECE_CHARS = 48 * 1024;
/** Most spans written by one JSON.stringify call. */
const MAX_GROUP = 256;

/** Encodes the items as one OTLP/JSON body, in small pieces of text made as they are asked for. */
export function* encodeTraceRequestPieces(items: readonly ExportItem[]): Generator<string, void, undefined> {
  let piece = '{"resourceSpans":[';
  let group = 1;
  let written = 0;
  let spanCount = 0;
  let firstResource = true;
  for (const { resource, scopes } of groupByResourceAndScope(items)) {
    const encodedResource = toResource(resource);
    piece += `${firstResource ? "" : ","}{"resource":${JSON.stringify(encodedResource)},"scopeSpans":[`;
    firstResource = false;
    let firstScope = true;
    for (const { scope, items: list } of scopes) {
      piece += `${firstScope ? "" : ","}{"scope":${JSON.stringify(toScope(scope))},"spans":[`;
      firstScope = false;
      for (let i = 0; i < list.length; ) {
        // A group of spans at a time, in one JSON.stringify: a call per span cost about 1.4 times the encoding of
        // the whole body at once. The group is sized from the spans written so far to make about a piece of text.
        const end = Math.min(list.length, i + group);
        const spans = new Array(end - i);
        for (let j = i; j < end; j++) spans[j - i] = toSpan(list[j] as ExportItem);
        const text = JSON.stringify(spans);
        piece += (i === 0 ? "" : ",") + text.slice(1, -1);
        written += text.length;
        spanCount += end - i;
        group = Math.max(1, Math.min(MAX_GROUP, Math.floor((PIECE_CHARS * spanCount) / written)));
        i = end;
        // Half a piece: a group is about a whole one, so a piece is mostly one group's text.
        if (piece.length >= PIECE_CHARS / 2) {
          yield piece;
          piece = "";
        }
      }
      piece += `]${optionalField("schemaUrl", scope.schemaUrl)}}`;
    }
    piece += `]${optionalField("schemaUrl", encodedResource.schemaUrl)}}`;
  }
  yield `${piece}]}`;
}

/** `,"name":value` as JSON.stringify writes a property, or nothing for undefined (which it leaves out). */
function optionalField(name: string, value: string | undefined): string {
  return value === undefined ? "" : `,"${name}":${JSON.stringify(value)}`;
}

function toResource(resource: ResourceLike) {
  const out: { attributes: KeyValue[]; droppedAttributesCount: number; schemaUrl?: string } = {
    attributes: toAttributes(resource.attributes ?? {}),
    droppedAttributesCount: 0,
  };
  if (resource.schemaUrl) out.schemaUrl = resource.schemaUrl;
  return out;
}

function toScope(scope: Scope) {
  const out: { name: string; version: string | undefined; attributes?: KeyValue[]; droppedAttributesCount?: number } = {
    name: scope.name,
    version: scope.version,
  };
  if (scope.attributes && Object.keys(scope.attributes).length > 0) {
    out.attributes = toAttributes(scope.attributes);
    out.droppedAttributesCount = scope.droppedAttributesCount ?? 0;
  }
  return out;
}

function toSpan(item: ExportItem) {
  const span = item.span;
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: parent?.spanId ? parent.spanId : undefined,
    traceState: ctx.traceState?.serialize(),
    name: span.name,
    kind: span.kind == null ? 0 : span.kind + 1,
    startTimeUnixNano: hrTimeToNanos(span.startTime),
    endTimeUnixNano: hrTimeToNanos(span.endTime),
    attributes: toAttributes(item.attributes),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map((event) => ({
      attributes: event.attributes ? toAttributes(event.attributes) : [],
      name: event.name,
      timeUnixNano: hrTimeToNanos(event.time),
      droppedAttributesCount: event.droppedAttributesCount || 0,
    })),
    droppedEventsCount: span.droppedEventsCount,
    status: { code: span.status.code, message: span.status.message },
    links: span.links.map(toLink),
    droppedLinksCount: span.droppedLinksCount,
    flags: spanFlags(ctx.traceFlags, parent?.isRemote),
  };
}

function toLink(link: Link) {
  const ctx: SpanContext = link.context;
  return {
    attributes: link.attributes ? toAttributes(link.attributes) : [],
    spanId: ctx.spanId,
    traceId: ctx.traceId,
    traceState: ctx.traceState?.serialize(),
    droppedAttributesCount: link.droppedAttributesCount || 0,
    flags: spanFlags(ctx.traceFlags, ctx.isRemote),
  };
}

/** Nanoseconds since the epoch as a decimal string, without floating-point loss. */
function hrTimeToNanos(time: HrTime): string {
  const [seconds, nanos] = time;
  if (Number.isSafeInteger(seconds) && seconds > 0 && Number.isInteger(nanos) && nanos >= 0 && nanos < 1e9)
    return `${seconds}${String(nanos).padStart(9, "0")}`;
  return (BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(nanos))).toString();
}

function toAttributes(attributes: Attributes): KeyValue[] {
  return Object.keys(attributes).map((key) => ({ key, value: toAnyValue(attributes[key]) }));
}

function toAnyValue(value: AttributeValue | unknown): AnyValue {
  switch (typeof value) {
    case "string":
      return { stringValue: value };
    case "number":
      return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
    case "boolean":
      return { boolValue: value };
  }
  if (value instanceof Uint8Array) return { bytesValue: toBase64(value) };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(toAnyValue) } };
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    return { kvlistValue: { values: Object.keys(record).map((key) => ({ key, value: toAnyValue(record[key]) })) } };
  }
  return {};
}
