import type { Attributes } from "@opentelemetry/api";
import type { SpanExportProtocol } from "../config.js";
import type { ReadableSpan } from "../readable-span.js";

/**
 * How large a span is once encoded, estimated without encoding it: what the export queue counts against
 * `maxQueueBytes` when a span ends. Every part of the span is counted (name, attributes with arrays and nested values,
 * events, links, status, trace state), each with the fixed bytes its encoding adds around it (`ENCODED_SIZES`).
 *
 * Text is counted at 1.5 bytes per UTF-16 unit without reading it: its encoded size lies between 1 byte per unit
 * (ASCII) and 3 (most of the Basic Multilingual Plane beyond Latin scripts), so any text stays within a factor of two.
 * OTLP/JSON escapes control characters other than tab, newline and carriage return (and lone surrogates) in six bytes
 * each: text made of them is counted four times too small.
 */

/** Fixed bytes of each part of a span in one encoding (field names, tags, lengths, ids, times). */
interface EncodedSizes {
  /** A span without name, attributes, events or links. */
  span: number;
  /** An attribute around its key and value. */
  attribute: number;
  string: number;
  number: number;
  boolean: number;
  /** An array around its values. */
  array: number;
  /** One value of an array around the value. */
  item: number;
  /** A nested object (a key-value list) around its attributes. */
  object: number;
  /** Bytes around a byte array, and bytes per byte of it. */
  bytes: number;
  perByte: number;
  /** A value the encoding leaves empty (null, undefined). */
  empty: number;
  /** An event without name or attributes. */
  event: number;
  /** A link without attributes. */
  link: number;
  /** Field of the status message, or of the trace state, around the text. */
  text: number;
}

const ENCODED_SIZES: Record<SpanExportProtocol, EncodedSizes> = {
  // `{"key":"","value":}` and a comma; `{"stringValue":""}`; `{"arrayValue":{"values":[]}}`...
  "http/json": {
    span: 352,
    attribute: 20,
    string: 18,
    number: 26,
    boolean: 18,
    array: 28,
    item: 1,
    object: 29,
    bytes: 17,
    perByte: 1.34,
    empty: 2,
    event: 92,
    link: 130,
    text: 15,
  },
  // Tags and length prefixes; ids as 16 and 8 bytes, times as fixed64.
  "http/protobuf": {
    span: 78,
    attribute: 7,
    string: 3,
    number: 6,
    boolean: 2,
    array: 3,
    item: 2,
    object: 3,
    bytes: 3,
    perByte: 1,
    empty: 0,
    event: 15,
    link: 37,
    text: 2,
  },
};

/** Nested values deeper than this are counted as empty (the encoders stop before JavaScript's stack does). */
const MAX_DEPTH = 8;

/** The estimate of one encoding: a function of the span alone. */
export function spanSizeEstimator(protocol: SpanExportProtocol): (span: ReadableSpan) => number {
  const sizes = ENCODED_SIZES[protocol];
  return (span) => estimateSpanSize(span, sizes);
}

function estimateSpanSize(span: ReadableSpan, sizes: EncodedSizes): number {
  let size = sizes.span + text(span.name) + attributesSize(span.attributes, sizes, 0);
  const message = span.status.message;
  if (message) size += sizes.text + text(message);
  const traceState = span.spanContext().traceState;
  if (traceState) size += sizes.text + text(traceState.serialize());
  for (const event of span.events) {
    size += sizes.event + text(event.name);
    if (event.attributes) size += attributesSize(event.attributes, sizes, 0);
  }
  for (const link of span.links) {
    size += sizes.link;
    if (link.attributes) size += attributesSize(link.attributes, sizes, 0);
  }
  return size;
}

/** Encoded bytes of text, estimated from its length alone. */
function text(value: string): number {
  return value.length + (value.length >> 1);
}

function attributesSize(attributes: Attributes | Record<string, unknown>, sizes: EncodedSizes, depth: number): number {
  let size = 0;
  for (const key in attributes) {
    size += sizes.attribute + text(key) + valueSize((attributes as Record<string, unknown>)[key], sizes, depth);
  }
  return size;
}

function valueSize(value: unknown, sizes: EncodedSizes, depth: number): number {
  switch (typeof value) {
    case "string":
      return sizes.string + text(value);
    case "number":
      return sizes.number;
    case "boolean":
      return sizes.boolean;
  }
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return sizes.empty;
  if (value instanceof Uint8Array) return sizes.bytes + Math.ceil(value.byteLength * sizes.perByte);
  if (Array.isArray(value)) {
    let size = sizes.array;
    for (const item of value) size += sizes.item + valueSize(item, sizes, depth + 1);
    return size;
  }
  return sizes.object + attributesSize(value as Record<string, unknown>, sizes, depth + 1);
}
