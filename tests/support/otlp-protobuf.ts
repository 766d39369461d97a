// Decodes an OTLP/protobuf ExportTraceServiceRequest into the OTLP/JSON shape (ids as hex, 64-bit times as decimal
// strings, bytes as base64), field by field, every field of the trace messages. Only the fields present on the wire
// appear; `withoutDefaults` drops default values so a decoded body compares equal to an OTLP/JSON body.

type Json = Record<string, unknown>;

/** Reads the fields of one message. */
class Reader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.bytes.length) throw new Error("truncated varint");
      const byte = this.bytes[this.pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      if (shift > 63n) throw new Error("varint longer than ten bytes");
    }
  }

  take(count: number): Uint8Array {
    if (this.pos + count > this.bytes.length) throw new Error("truncated field");
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
      else throw new Error(`wire type ${wire} of field ${field}`);
    }
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const text = (value: bigint | Uint8Array) => utf8.decode(value as Uint8Array);
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
    } else throw new Error(`unexpected field ${field}`);
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

/** An OTLP/protobuf trace export request in the OTLP/JSON shape; throws on anything malformed. */
export function decodeTraceRequest(bytes: Uint8Array): Json {
  return message(bytes, {}, { 1: ["resourceSpans", resourceSpans] });
}

/**
 * A copy without the fields that hold a default value (0, "", false, an empty list, undefined): protobuf leaves
 * some of them out, OTLP/JSON writes some of them.
 */
export function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (typeof value !== "object" || value === null) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || item === 0 || item === "" || item === false) continue;
    if (Array.isArray(item) && item.length === 0) continue;
    out[key] = withoutDefaults(item);
  }
  return out;
}

/** The spans of a decoded request, in order. */
export function spansOf(request: Json): Json[] {
  const spans: Json[] = [];
  for (const rs of (request.resourceSpans ?? []) as Json[])
    for (const ss of (rs.scopeSpans ?? []) as Json[]) spans.push(...((ss.spans ?? []) as Json[]));
  return spans;
}

/** Bytes of each span message (without its tag and length) of an OTLP/protobuf trace export request, in order. */
export function spanMessageSizes(bytes: Uint8Array): number[] {
  const sizes: number[] = [];
  const within = (message: Uint8Array, field: number, each: (inner: Uint8Array) => void) => {
    for (const [number, wire, value] of new Reader(message).fields())
      if (number === field && wire === 2) each(value as Uint8Array);
  };
  within(bytes, 1, (resourceSpans) =>
    within(resourceSpans, 2, (scopeSpans) => within(scopeSpans, 2, (span) => sizes.push(span.byteLength))),
  );
  return sizes;
}
