// The OTLP/protobuf reader is the dev server's; the tests read strictly (unknown fields and invalid UTF-8 rejected)
// and compare with OTLP/JSON bodies through `withoutDefaults`.
import { decodeTraceRequest as decode, Reader } from "../../tools/dev-server/src/otlp/decode-protobuf.ts";

type Json = Record<string, unknown>;

/** An OTLP/protobuf trace export request in the OTLP/JSON shape; throws on anything malformed or unknown. */
export function decodeTraceRequest(bytes: Uint8Array): Json {
  return decode(bytes, { strict: true });
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
