// The sink's reading of OTLP traces requests: the spans of an OTLP/JSON or OTLP/protobuf body, checked for shape.

export const HEX32 = /^[0-9a-f]{32}$/;
export const HEX16 = /^[0-9a-f]{16}$/;

export interface OtlpSpan {
  traceId?: unknown;
  spanId?: unknown;
  name?: unknown;
}

/** Yields every span of an OTLP/JSON traces request, or throws when the shape is wrong. */
export function jsonSpans(body: unknown): OtlpSpan[] {
  const resourceSpans = (body as { resourceSpans?: unknown })?.resourceSpans;
  if (!Array.isArray(resourceSpans)) throw new Error("no resourceSpans array");
  const out: OtlpSpan[] = [];
  for (const rs of resourceSpans) {
    const scopeSpans = (rs as { scopeSpans?: unknown })?.scopeSpans;
    if (!Array.isArray(scopeSpans)) throw new Error("no scopeSpans array");
    for (const ss of scopeSpans) {
      const spans = (ss as { spans?: unknown })?.spans;
      if (!Array.isArray(spans)) throw new Error("no spans array");
      out.push(...(spans as OtlpSpan[]));
    }
  }
  return out;
}

/** Reads the length-delimited fields with the given number from a protobuf message. */
function protoFields(buf: Buffer, wanted: number): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (let n = 0; n < 10; n++) {
      if (pos >= buf.length) throw new Error("truncated varint");
      const byte = buf[pos++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
    throw new Error("varint too long");
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const len = varint();
      if (pos + len > buf.length) throw new Error("truncated field");
      if (field === wanted) out.push(buf.subarray(pos, pos + len));
      pos += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

/** Spans of an OTLP/protobuf traces request: resource_spans(1) > scope_spans(2) > spans(2) > trace_id(1), span_id(2). */
export function protoSpans(buf: Buffer): OtlpSpan[] {
  const out: OtlpSpan[] = [];
  for (const rs of protoFields(buf, 1)) {
    for (const ss of protoFields(rs, 2)) {
      for (const span of protoFields(ss, 2)) {
        out.push({
          traceId: protoFields(span, 1)[0]?.toString("hex"),
          spanId: protoFields(span, 2)[0]?.toString("hex"),
          name: protoFields(span, 5)[0]?.toString("utf8"),
        });
      }
    }
  }
  return out;
}
