// OTLP/protobuf encoding of ended spans (`ExportTraceServiceRequest` of opentelemetry/proto/collector/trace/v1),
// field for field and in the same order as the OpenTelemetry JS protobuf serializer, so request bodies are
// byte-identical to what `@opentelemetry/exporter-trace-otlp-proto` sends. The walk over the request runs twice, to
// measure and to write (`protobuf-writer.ts`); the bytes are handed out span by span, never the whole body at once.

import type { Attributes, Link } from "@opentelemetry/api";
import { type ExportItem, groupByResourceAndScope, type ResourceGroup, type Scope, spanFlags } from "./otlp-request.js";
import { type FieldSink, ProtobufChunkWriter, ProtobufMeasure } from "./protobuf-writer.js";

const INT64_LIMIT = 2 ** 63;

/** Encodes the items as one OTLP/protobuf body in pieces; throws if the spans change between the two passes. */
export function* encodeTraceRequestProtobuf(items: readonly ExportItem[]): Generator<Uint8Array, void, undefined> {
  const groups = groupByResourceAndScope(items);
  const measure = new ProtobufMeasure();
  for (const _span of walkRequest(measure, groups));
  const writer = new ProtobufChunkWriter(measure.sizes, measure.total);
  for (const _span of walkRequest(writer, groups)) if (writer.hasReady) yield* writer.take();
  writer.finish();
  yield* writer.take();
}

/** Walks the request, field by field; pauses after each span. */
function* walkRequest(out: FieldSink, groups: readonly ResourceGroup[]): Generator<void, void, undefined> {
  for (const { resource, scopes } of groups) {
    out.open(1); // ExportTraceServiceRequest.resource_spans
    out.open(1); // ResourceSpans.resource
    if (resource.attributes) attributes(out, 1, resource.attributes);
    out.varint(2, 0); // dropped_attributes_count, not tracked by the SDK
    out.close();
    for (const { scope, items } of scopes) {
      out.open(2); // ResourceSpans.scope_spans
      scopeMessage(out, scope);
      for (const item of items) {
        spanMessage(out, item);
        yield;
      }
      if (scope.schemaUrl) out.string(3, scope.schemaUrl);
      out.close();
    }
    if (resource.schemaUrl) out.string(3, resource.schemaUrl);
    out.close();
  }
}

function scopeMessage(out: FieldSink, scope: Scope): void {
  out.open(1); // ScopeSpans.scope
  out.string(1, scope.name ?? "");
  if (scope.version) out.string(2, scope.version);
  if (scope.attributes) attributes(out, 3, scope.attributes);
  if (scope.droppedAttributesCount) out.varint(4, scope.droppedAttributesCount);
  out.close();
}

function spanMessage(out: FieldSink, item: ExportItem): void {
  const span = item.span;
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  out.open(2); // ScopeSpans.spans
  out.id(1, ctx.traceId);
  out.id(2, ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) out.string(3, traceState);
  if (parent?.spanId) out.id(4, parent.spanId);
  out.string(5, span.name);
  // The API's kinds start at INTERNAL = 0; OTLP's at UNSPECIFIED = 0, INTERNAL = 1.
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) out.varint(6, kind);
  out.time(7, span.startTime);
  out.time(8, span.endTime);
  if (item.attributes) attributes(out, 9, item.attributes);
  out.varint(10, span.droppedAttributesCount || 0);
  for (const event of span.events) {
    out.open(11);
    out.time(1, event.time);
    out.string(2, event.name);
    if (event.attributes) attributes(out, 3, event.attributes);
    out.varint(4, event.droppedAttributesCount || 0);
    out.close();
  }
  out.varint(12, span.droppedEventsCount || 0);
  for (const link of span.links) linkMessage(out, link);
  out.varint(14, span.droppedLinksCount || 0);
  out.open(15); // Span.status
  if (span.status.message) out.string(2, span.status.message);
  out.varint(3, span.status.code);
  out.close();
  out.fixed32(16, spanFlags(ctx.traceFlags, parent?.isRemote));
  out.close();
}

function linkMessage(out: FieldSink, link: Link): void {
  const ctx = link.context;
  out.open(13);
  out.id(1, ctx.traceId);
  out.id(2, ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) out.string(3, traceState);
  if (link.attributes) attributes(out, 4, link.attributes);
  out.varint(5, link.droppedAttributesCount || 0);
  out.fixed32(6, spanFlags(ctx.traceFlags, ctx.isRemote));
  out.close();
}

/** Repeated `KeyValue` in field `field`, one per own enumerable key. */
function attributes(out: FieldSink, field: number, values: Attributes | Record<string, unknown>): void {
  for (const key of Object.keys(values)) {
    out.open(field);
    out.string(1, key); // KeyValue.key
    out.open(2); // KeyValue.value
    anyValue(out, (values as Record<string, unknown>)[key]);
    out.close();
    out.close();
  }
}

/** The fields of an `AnyValue`; nothing for a value OTLP cannot carry (null, undefined, a function...). */
function anyValue(out: FieldSink, value: unknown): void {
  switch (typeof value) {
    case "string":
      out.string(1, value);
      return;
    case "boolean":
      out.varint(2, value ? 1 : 0);
      return;
    case "number":
      if (Number.isInteger(value) && value >= -INT64_LIMIT && value < INT64_LIMIT) out.varint(3, value);
      else out.double(4, value);
      return;
  }
  if (value instanceof Uint8Array) out.bytes(7, value);
  else if (Array.isArray(value)) {
    out.open(5); // AnyValue.array_value
    for (const item of value) {
      out.open(1); // ArrayValue.values
      anyValue(out, item);
      out.close();
    }
    out.close();
  } else if (typeof value === "object" && value !== null) {
    out.open(6); // AnyValue.kvlist_value
    attributes(out, 1, value as Record<string, unknown>);
    out.close();
  }
}
