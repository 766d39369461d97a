import { decodeOtlpJson } from "./decode-json.ts";
import { OtlpDecodeError, type OtlpSpan } from "./span.ts";

// The one OTLP/protobuf reader of the repository (the dev server's, and the tests'): an ExportTraceServiceRequest
// into the OTLP/JSON shape (ids as hex, 64-bit times as decimal strings, bytes as base64), field by field, every
// field of the trace messages (opentelemetry/proto/trace/v1/trace.proto and common.proto). Only the fields present
// on the wire appear.

type Json = Record<string, unknown>;

/** Reads the fields of one message (the tests measure messages with it too). */
export class Reader {
  pos = 0;
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.bytes.length) throw new OtlpDecodeError("Truncated protobuf varint");
      const byte = this.bytes[this.pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      if (shift > 63n) throw new OtlpDecodeError("Malformed protobuf varint (longer than ten bytes)");
    }
  }

  take(count: number): Uint8Array {
    if (this.pos + count > this.bytes.length) throw new OtlpDecodeError("Truncated protobuf field");
    const out = this.bytes.subarray(this.pos, this.pos + count);
    this.pos += count;
    return out;
  }

  /** Each field as [number, wire type, value]: a varint as a bigint, anything else as its bytes. */
  *fields(): Generator<[number, number, bigint | Uint8Array]> {
    while (this.pos < this.bytes.length) {
      const tag = Number(this.varint());
      const field = tag >>> 3;
      const wire = tag & 7;
      if (wire === 0) yield [field, wire, this.varint()];
      else if (wire === 1) yield [field, wire, this.take(8)];
      else if (wire === 2) yield [field, wire, this.take(Number(this.varint()))];
      else if (wire === 5) yield [field, wire, this.take(4)];
      else throw new OtlpDecodeError(`Unsupported protobuf wire type ${wire} of field ${field}`);
    }
  }
}

const lenient = new TextDecoder("utf-8");
const fatal = new TextDecoder("utf-8", { fatal: true });
// Set for the length of one decodeTraceRequest call (decoding is synchronous).
let strict = false;
const text = (value: bigint | Uint8Array) => (strict ? fatal : lenient).decode(value as Uint8Array);
const hex = (value: bigint | Uint8Array) => Buffer.from(value as Uint8Array).toString("hex");
const fixed64 = (value: bigint | Uint8Array) =>
  Buffer.from(value as Uint8Array)
    .readBigUInt64LE(0)
    .toString();
const fixed32 = (value: bigint | Uint8Array) => Buffer.from(value as Uint8Array).readUInt32LE(0);
const uint = (value: bigint | Uint8Array) => Number(value as bigint);

/** Decodes a message: `scalars` maps field numbers to a name and a reader, `repeated` to a name and a decoder. */
function message(
  bytes: Uint8Array,
  scalars: Record<number, [string, (value: bigint | Uint8Array) => unknown]>,
  repeated: Record<number, [string, (bytes: Uint8Array) => unknown]> = {},
): Json {
  const out: Json = {};
  for (const [field, , value] of new Reader(bytes).fields()) {
    const scalar = scalars[field];
    const list = repeated[field];
    if (scalar) out[scalar[0]] = scalar[1](value);
    else if (list) {
      out[list[0]] ??= [];
      (out[list[0]] as unknown[]).push(list[1](value as Uint8Array));
    } else if (strict) throw new OtlpDecodeError(`Unexpected protobuf field ${field}`);
  }
  return out;
}

function anyValue(bytes: Uint8Array): Json {
  return message(bytes, {
    1: ["stringValue", text],
    2: ["boolValue", (v) => v !== 0n],
    3: ["intValue", (v) => Number(BigInt.asIntN(64, v as bigint))],
    4: ["doubleValue", (v) => Buffer.from(v as Uint8Array).readDoubleLE(0)],
    5: ["arrayValue", (v) => message(v as Uint8Array, {}, { 1: ["values", anyValue] })],
    6: ["kvlistValue", (v) => message(v as Uint8Array, {}, { 1: ["values", keyValue] })],
    7: ["bytesValue", (v) => Buffer.from(v as Uint8Array).toString("base64")],
  });
}

function keyValue(bytes: Uint8Array): Json {
  return message(bytes, { 1: ["key", text], 2: ["value", (v) => anyValue(v as Uint8Array)] });
}

function span(bytes: Uint8Array): Json {
  return message(
    bytes,
    {
      1: ["traceId", hex],
      2: ["spanId", hex],
      3: ["traceState", text],
      4: ["parentSpanId", hex],
      5: ["name", text],
      6: ["kind", uint],
      7: ["startTimeUnixNano", fixed64],
      8: ["endTimeUnixNano", fixed64],
      10: ["droppedAttributesCount", uint],
      12: ["droppedEventsCount", uint],
      14: ["droppedLinksCount", uint],
      15: ["status", (v) => message(v as Uint8Array, { 2: ["message", text], 3: ["code", uint] })],
      16: ["flags", fixed32],
    },
    {
      9: ["attributes", keyValue],
      11: [
        "events",
        (b) =>
          message(
            b,
            { 1: ["timeUnixNano", fixed64], 2: ["name", text], 4: ["droppedAttributesCount", uint] },
            { 3: ["attributes", keyValue] },
          ),
      ],
      13: [
        "links",
        (b) =>
          message(
            b,
            {
              1: ["traceId", hex],
              2: ["spanId", hex],
              3: ["traceState", text],
              5: ["droppedAttributesCount", uint],
              6: ["flags", fixed32],
            },
            { 4: ["attributes", keyValue] },
          ),
      ],
    },
  );
}

function scopeSpans(bytes: Uint8Array): Json {
  return message(
    bytes,
    {
      1: [
        "scope",
        (v) =>
          message(
            v as Uint8Array,
            { 1: ["name", text], 2: ["version", text], 4: ["droppedAttributesCount", uint] },
            { 3: ["attributes", keyValue] },
          ),
      ],
      3: ["schemaUrl", text],
    },
    { 2: ["spans", span] },
  );
}

function resourceSpans(bytes: Uint8Array): Json {
  return message(
    bytes,
    {
      1: [
        "resource",
        (v) => message(v as Uint8Array, { 2: ["droppedAttributesCount", uint] }, { 1: ["attributes", keyValue] }),
      ],
      3: ["schemaUrl", text],
    },
    { 2: ["scopeSpans", scopeSpans] },
  );
}

/** How {@link decodeTraceRequest} reads: `strict` also rejects unknown fields and text that is not UTF-8. */
export interface DecodeOptions {
  strict?: boolean;
}

/**
 * An OTLP/protobuf trace export request in the OTLP/JSON shape; throws {@link OtlpDecodeError} on anything
 * malformed. Unknown fields are skipped, as a server does, unless `strict`.
 */
export function decodeTraceRequest(bytes: Uint8Array, options: DecodeOptions = {}): Json {
  strict = options.strict === true;
  try {
    return message(bytes, {}, { 1: ["resourceSpans", resourceSpans] });
  } finally {
    strict = false;
  }
}

/** Decodes an OTLP protobuf `ExportTraceServiceRequest` into spans, read as its OTLP/JSON form is. */
export function decodeOtlpProtobuf(body: Uint8Array): OtlpSpan[] {
  return decodeOtlpJson(decodeTraceRequest(body));
}
