/** An attribute value as OTLP carries it, after decoding (int64 values become numbers). */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | Uint8Array
  | AttributeValue[]
  | { [key: string]: AttributeValue };

/** One span of an OTLP export, with the resource and scope it came with. Ids are lower-case hex. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** Unix time in nanoseconds. */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
  resourceAttributes: Record<string, AttributeValue>;
  scopeName: string;
  scopeVersion: string;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  events: { name: string; timeUnixNano: bigint; attributes: Record<string, AttributeValue> }[];
}

/** Why an OTLP export was rejected as a whole. */
export class OtlpDecodeError extends Error {
  override name = "OtlpDecodeError";
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** Checks the ids of a decoded span and normalises an empty or all-zero parent to `undefined`. */
export function checkIds(span: OtlpSpan, where: string): OtlpSpan {
  if (!TRACE_ID.test(span.traceId) || /^0+$/.test(span.traceId)) {
    throw new OtlpDecodeError(`${where}: traceId must be 16 bytes (32 hex characters), got "${span.traceId}"`);
  }
  if (!SPAN_ID.test(span.spanId) || /^0+$/.test(span.spanId)) {
    throw new OtlpDecodeError(`${where}: spanId must be 8 bytes (16 hex characters), got "${span.spanId}"`);
  }
  const parent = span.parentSpanId;
  if (parent !== undefined && parent !== "" && !SPAN_ID.test(parent)) {
    throw new OtlpDecodeError(`${where}: parentSpanId must be 8 bytes (16 hex characters), got "${parent}"`);
  }
  return { ...span, parentSpanId: parent && !/^0+$/.test(parent) ? parent : undefined };
}
