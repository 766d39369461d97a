import { type AttributeValue, checkIds, OtlpDecodeError, type OtlpSpan } from "./span.ts";

// Field numbers of the OTLP trace messages (opentelemetry/proto/trace/v1/trace.proto and common.proto).
// The decoder reads only what the server uses and skips every other field.

/** A forward-only reader over protobuf wire data. */
class Reader {
  #pos = 0;
  readonly buf: Uint8Array;
  constructor(buf: Uint8Array) {
    this.buf = buf;
  }

  get done(): boolean {
    return this.#pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.#pos >= this.buf.length) throw new OtlpDecodeError("Truncated protobuf varint");
      const byte = this.buf[this.#pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new OtlpDecodeError("Malformed protobuf varint");
  }

  bytes(): Uint8Array {
    const length = Number(this.varint());
    const end = this.#pos + length;
    if (end > this.buf.length) throw new OtlpDecodeError("Truncated protobuf length-delimited field");
    const out = this.buf.subarray(this.#pos, end);
    this.#pos = end;
    return out;
  }

  fixed(size: 4 | 8): Uint8Array {
    const end = this.#pos + size;
    if (end > this.buf.length) throw new OtlpDecodeError("Truncated protobuf fixed-size field");
    const out = this.buf.subarray(this.#pos, end);
    this.#pos = end;
    return out;
  }

  /** Calls `onField(number, wireType)` for each field; the callback must read the value or return false to skip. */
  fields(onField: (field: number, wireType: number) => boolean): void {
    while (!this.done) {
      const tag = Number(this.varint());
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === 0) throw new OtlpDecodeError("Malformed protobuf tag");
      if (!onField(field, wireType)) this.skip(wireType);
    }
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.fixed(8);
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.fixed(4);
    else throw new OtlpDecodeError(`Unsupported protobuf wire type ${wireType}`);
  }
}

const utf8 = new TextDecoder("utf-8");
const text = (bytes: Uint8Array) => utf8.decode(bytes);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fixed64 = (bytes: Uint8Array) => Buffer.from(bytes).readBigUInt64LE(0);

function anyValue(buf: Uint8Array): AttributeValue {
  let value: AttributeValue = null;
  const reader = new Reader(buf);
  reader.fields((field, wire) => {
    if (field === 1 && wire === 2) value = text(reader.bytes());
    else if (field === 2 && wire === 0) value = reader.varint() !== 0n;
    else if (field === 3 && wire === 0) value = Number(BigInt.asIntN(64, reader.varint()));
    else if (field === 4 && wire === 1) value = Buffer.from(reader.fixed(8)).readDoubleLE(0);
    else if (field === 5 && wire === 2) value = repeated(reader.bytes(), 1, anyValue);
    else if (field === 6 && wire === 2) value = keyValues(repeated(reader.bytes(), 1, (b) => b));
    else if (field === 7 && wire === 2) value = new Uint8Array(reader.bytes());
    else return false;
    return true;
  });
  return value;
}

/** Reads every occurrence of a length-delimited field of a message and maps it. */
function repeated<T>(buf: Uint8Array, wanted: number, map: (bytes: Uint8Array) => T): T[] {
  const out: T[] = [];
  const reader = new Reader(buf);
  reader.fields((field, wire) => {
    if (field !== wanted || wire !== 2) return false;
    out.push(map(reader.bytes()));
    return true;
  });
  return out;
}

/** Decodes `KeyValue` messages (key = 1, value = 2) into an object. */
function keyValues(messages: Uint8Array[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const message of messages) {
    let key = "";
    let value: AttributeValue = null;
    const reader = new Reader(message);
    reader.fields((field, wire) => {
      if (field === 1 && wire === 2) key = text(reader.bytes());
      else if (field === 2 && wire === 2) value = anyValue(reader.bytes());
      else return false;
      return true;
    });
    out[key] = value;
  }
  return out;
}

interface Scope {
  name: string;
  version: string;
}

function scope(buf: Uint8Array): Scope {
  const out: Scope = { name: "", version: "" };
  const reader = new Reader(buf);
  reader.fields((field, wire) => {
    if (field === 1 && wire === 2) out.name = text(reader.bytes());
    else if (field === 2 && wire === 2) out.version = text(reader.bytes());
    else return false;
    return true;
  });
  return out;
}

function span(buf: Uint8Array, resourceAttributes: Record<string, AttributeValue>, sc: Scope): OtlpSpan {
  const out: OtlpSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: undefined,
    name: "",
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: {},
    resourceAttributes,
    scopeName: sc.name,
    scopeVersion: sc.version,
    statusCode: 0,
    statusMessage: "",
    events: [],
  };
  const attributes: Uint8Array[] = [];
  const reader = new Reader(buf);
  reader.fields((field, wire) => {
    if (field === 1 && wire === 2) out.traceId = hex(reader.bytes());
    else if (field === 2 && wire === 2) out.spanId = hex(reader.bytes());
    else if (field === 4 && wire === 2) out.parentSpanId = hex(reader.bytes());
    else if (field === 5 && wire === 2) out.name = text(reader.bytes());
    else if (field === 7 && wire === 1) out.startTimeUnixNano = fixed64(reader.fixed(8));
    else if (field === 8 && wire === 1) out.endTimeUnixNano = fixed64(reader.fixed(8));
    else if (field === 9 && wire === 2) attributes.push(reader.bytes());
    else if (field === 11 && wire === 2) out.events.push(event(reader.bytes()));
    else if (field === 15 && wire === 2) status(reader.bytes(), out);
    else return false;
    return true;
  });
  out.attributes = keyValues(attributes);
  return out;
}

function event(buf: Uint8Array): OtlpSpan["events"][number] {
  const out: OtlpSpan["events"][number] = { name: "", timeUnixNano: 0n, attributes: {} };
  const attributes: Uint8Array[] = [];
  const reader = new Reader(buf);
  reader.fields((field, wire) => {
    if (field === 1 && wire === 1) out.timeUnixNano = fixed64(reader.fixed(8));
    else if (field === 2 && wire === 2) out.name = text(reader.bytes());
    else if (field === 3 && wire === 2) attributes.push(reader.bytes());
    else return false;
    return true;
  });
  out.attributes = keyValues(attributes);
  return out;
}

function status(buf: Uint8Array, into: OtlpSpan): void {
  const reader = new Reader(buf);
  reader.fields((field, wire) => {
    if (field === 2 && wire === 2) into.statusMessage = text(reader.bytes());
    else if (field === 3 && wire === 0) into.statusCode = Number(reader.varint());
    else return false;
    return true;
  });
}

/** Decodes an OTLP protobuf `ExportTraceServiceRequest` into spans. */
export function decodeOtlpProtobuf(body: Uint8Array): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  repeated(body, 1, (b) => b).forEach((resourceSpans, r) => {
    let resourceAttributes: Record<string, AttributeValue> = {};
    const scopeSpans: Uint8Array[] = [];
    const reader = new Reader(resourceSpans);
    reader.fields((field, wire) => {
      if (field === 1 && wire === 2) resourceAttributes = keyValues(repeated(reader.bytes(), 1, (b) => b));
      else if (field === 2 && wire === 2) scopeSpans.push(reader.bytes());
      else return false;
      return true;
    });
    scopeSpans.forEach((ss, s) => {
      let sc: Scope = { name: "", version: "" };
      const rawSpans: Uint8Array[] = [];
      const ssReader = new Reader(ss);
      ssReader.fields((field, wire) => {
        if (field === 1 && wire === 2) sc = scope(ssReader.bytes());
        else if (field === 2 && wire === 2) rawSpans.push(ssReader.bytes());
        else return false;
        return true;
      });
      rawSpans.forEach((raw, k) => {
        spans.push(checkIds(span(raw, resourceAttributes, sc), `resourceSpans[${r}].scopeSpans[${s}].spans[${k}]`));
      });
    });
  });
  return spans;
}
