import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@svc/core";
import type { SpanExportProtocol } from "../config.js";

/**
 * How large a span is once encoded, estimated without encoding it: what the export queue counts against
 * `maxQueueBytes`. Every part is counted (name, attributes with arrays and nested values, events, links, status, trace
 * state), with the fixed bytes its encoding adds around it (`ENCODED_SIZES`).
 *
 * A character counts the more of 1.5 times what V8 holds it in and what it encodes to plus half a byte (`charSize`), so
 * that the byte bound holds about as much memory whatever the text: ASCII 1.5 (JSON's two-byte escapes too), the rest
 * of Latin-1 2.5, U+0100 to U+07FF 3 (V8 then holds every character at 2 bytes), the rest of the BMP 3.5, each unit of
 * a surrogate pair 3, other control characters and lone surrogates their encoding and a half (`\u0001` is 6 bytes in
 * OTLP/JSON; protobuf writes 1, and U+FFFD for a lone surrogate). Text longer than `READ_IN_FULL` is sampled, so that
 * long text costs about what short text does: exact for text of one kind, as good as the sample for mixed text. ASCII
 * text with a few characters beyond U+00FF is counted low.
 */

/** Fixed bytes of each part of a span in OTLP/JSON: `{"key":"","value":}` and a comma; `{"stringValue":""}`... */
const JSON_SIZES = {
  span: 352, // without name, attributes, events or links
  attribute: 20, // around its key and value
  string: 18,
  number: 26,
  boolean: 18,
  array: 28, // around its values
  item: 1, // one value of an array, around the value
  object: 29, // a nested key-value list, around its attributes
  bytes: 17, // around a byte array; then `perByte` for each byte
  perByte: 1.34,
  empty: 2, // null, undefined
  event: 92, // without name or attributes
  link: 130, // without attributes
  text: 15, // the field of the status message or trace state, around the text
  control: 6, // a control character other than tab, newline and carriage return
  loneSurrogate: 6, // a surrogate code unit without its other half
  /** The size of each attribute key seen, up to `KEY_SIZES_MAX` keys. */
  keys: new Map<string, number>(),
};
type EncodedSizes = typeof JSON_SIZES;

const ENCODED_SIZES: Record<SpanExportProtocol, EncodedSizes> = {
  "http/json": JSON_SIZES,
  // Tags and length prefixes; ids as 16 and 8 bytes, times as fixed64; TextEncoder writes U+FFFD for a lone surrogate.
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
    control: 1,
    loneSurrogate: 3,
    keys: new Map(),
  },
};

/** Nested values deeper than this are counted as empty (the encoders stop before JavaScript's stack does). */
const MAX_DEPTH = 8;

/** The estimate of one encoding: a function of the span alone; 0 for a span whose reading throws. */
export function spanSizeEstimator(protocol: SpanExportProtocol): (span: ReadableSpan) => number {
  const sizes = ENCODED_SIZES[protocol];
  return (span) => {
    try {
      return estimateSpanSize(span, sizes);
    } catch {
      return 0;
    }
  };
}

function estimateSpanSize(span: ReadableSpan, sizes: EncodedSizes): number {
  let size = sizes.span + text(span.name, sizes) + attributesSize(span.attributes, sizes, 0);
  const message = span.status.message;
  if (message) size += sizes.text + text(message, sizes);
  const traceState = span.spanContext().traceState;
  if (traceState) size += sizes.text + text(traceState.serialize(), sizes);
  for (const event of span.events) {
    size += sizes.event + text(event.name, sizes);
    if (event.attributes) size += attributesSize(event.attributes, sizes, 0);
  }
  for (const link of span.links) {
    size += sizes.link;
    if (link.attributes) size += attributesSize(link.attributes, sizes, 0);
  }
  return size;
}

/** Text up to this long is read in full; longer text is sampled. */
const READ_IN_FULL = 256;
/** Characters read of longer text: one in each of as many equal stretches of it. */
const SAMPLES = 16;

/**
 * Bytes counted for text: each character read at {@link charSize}; of text longer than `READ_IN_FULL`, `SAMPLES`
 * characters are read, one at a scattered place in each stretch (so that text made of records of one length does not
 * show the same field to every sample), and their average is counted for each.
 */
function text(value: string, sizes: EncodedSizes): number {
  const length = value.length;
  let size = 0;
  if (length <= READ_IN_FULL) {
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      size += code >= 0x20 && code < 0x80 ? 1.5 : charSize(value, i, sizes);
    }
    return Math.ceil(size);
  }
  const stretch = length / SAMPLES;
  for (let k = 0; k < SAMPLES; k++) size += charSize(value, ((k + SAMPLE_AT[k]!) * stretch) | 0, sizes);
  return Math.ceil((size / SAMPLES) * length);
}

/** Where in its stretch each sample is read, in [0, 1): multiplicative hashing of its number, for scattered places. */
const SAMPLE_AT = Array.from({ length: SAMPLES }, (_, k) => (Math.imul(k + 1, 0x9e3779b1) >>> 0) / 2 ** 32);

/**
 * Bytes counted for the UTF-16 code unit at `i`: 1.5 times what V8 holds it in (1 byte up to U+00FF, 2 beyond), or
 * what it encodes to and half a byte more (its encoded body is held beside it while it is sent), whichever is more.
 */
function charSize(value: string, i: number, sizes: EncodedSizes): number {
  const code = value.charCodeAt(i);
  if (code < 0x80) return code < 0x20 && code !== 9 && code !== 10 && code !== 13 ? sizes.control + 0.5 : 1.5;
  if (code < 0x100) return 2.5;
  if (code < 0x800) return 3;
  if (code < 0xd800 || code > 0xdfff) return 3.5;
  const paired =
    code < 0xdc00 ? (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00 : (value.charCodeAt(i - 1) & 0xfc00) === 0xd800;
  // A pair's four UTF-8 bytes are 2 per unit: 1.5 times the 2 bytes V8 holds each unit in is more.
  return paired ? 3 : sizes.loneSurrogate + 0.5;
}

function attributesSize(attributes: Attributes | Record<string, unknown>, sizes: EncodedSizes, depth: number): number {
  let size = 0;
  for (const key in attributes) {
    size +=
      sizes.attribute + keySize(key, sizes) + valueSize((attributes as Record<string, unknown>)[key], sizes, depth);
  }
  return size;
}

/** Attribute keys whose size is remembered, per protocol: the same few keys come back on every span. */
const KEY_SIZES_MAX = 1024;

/** {@link text} of an attribute key, read once: the largest single cost of the estimate was reading keys again. */
function keySize(key: string, sizes: EncodedSizes): number {
  let size = sizes.keys.get(key);
  if (size === undefined) {
    size = text(key, sizes);
    if (sizes.keys.size < KEY_SIZES_MAX) sizes.keys.set(key, size);
  }
  return size;
}

function valueSize(value: unknown, sizes: EncodedSizes, depth: number): number {
  switch (typeof value) {
    case "string":
      return sizes.string + text(value, sizes);
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
