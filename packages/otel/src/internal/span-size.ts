import type { Attributes } from "@opentelemetry/api";
import type { SpanExportProtocol } from "../config.js";
import type { ReadableSpan } from "../readable-span.js";

/**
 * How large a span is once encoded, estimated without encoding it: what the export queue counts against
 * `maxQueueBytes` when a span ends. Every part of the span is counted (name, attributes with arrays and nested values,
 * events, links, status, trace state), each with the fixed bytes its encoding adds around it (`ENCODED_SIZES`).
 *
 * Each character of text is counted at 1.5 times what V8 holds it in, or at what it encodes to and half a byte more,
 * whichever is more (`charSize`); ASCII counts 1.5 both ways (`"`, `\`, tab, newline and carriage return, which JSON
 * escapes in 2 bytes, are counted 1.5 too). The rest of Latin-1 counts 2.5 (2 in UTF-8), U+0100 to U+07FF 3 (V8
 * holds text with such characters at 2 bytes each), the rest of the Basic Multilingual Plane (CJK) 3.5 (3 in UTF-8),
 * each unit of a surrogate pair 3 (4 bytes in UTF-8 for the two), and other control characters and lone surrogates
 * what the encoding makes of them and half a byte (6 bytes each in OTLP/JSON, `\u0001`; in protobuf a control
 * character is 1 byte and a lone surrogate becomes U+FFFD, 3). So the byte bound holds about as much memory whatever
 * the text. Text longer than `READ_IN_FULL` is sampled rather than read whole, so that a span of long text costs about
 * what one of short text does: the estimate is exact for text of one kind throughout and, for mixed text, as good as
 * the sample. ASCII text with a few characters beyond U+00FF is counted low (V8 then holds every character at 2 bytes).
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
  /** A control character other than tab, newline and carriage return. */
  control: number;
  /** A surrogate code unit without its other half. */
  loneSurrogate: number;
  /** The size of each attribute key seen, up to `KEY_SIZES_MAX` keys. */
  keys: Map<string, number>;
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
    control: 6,
    loneSurrogate: 6,
    keys: new Map(),
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
    control: 1,
    // TextEncoder writes U+FFFD.
    loneSurrogate: 3,
    keys: new Map(),
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
 * Encoded bytes of text: each character read is counted at what it encodes to; of text longer than
 * `READ_IN_FULL`, `SAMPLES` characters are read, one at a scattered place in each stretch (so that text made of
 * records of one length does not show the same field to every sample), and their average is counted for each.
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
  for (let k = 0; k < SAMPLES; k++) {
    const i = ((k + SAMPLE_AT[k]!) * stretch) | 0;
    const code = value.charCodeAt(i);
    size += code >= 0x20 && code < 0x80 ? 1.5 : charSize(value, i, sizes);
  }
  return Math.ceil((size / SAMPLES) * length);
}

/** Where in its stretch each sample is read, in [0, 1): multiplicative hashing of its number, for scattered places. */
const SAMPLE_AT = Array.from({ length: SAMPLES }, (_, k) => (Math.imul(k + 1, 0x9e3779b1) >>> 0) / 2 ** 32);

/**
 * Bytes counted for the UTF-16 code unit at `i`: 1.5 times what V8 holds it in (1 byte up to U+00FF, 2 beyond), or
 * what it encodes to and half a byte more (its encoded body is held beside it while it is sent), whichever is more. An
 * ASCII character counts 1.5 both ways, so the queue holds about as much memory whatever the text.
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
