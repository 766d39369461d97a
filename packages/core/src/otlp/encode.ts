import { enumOption, type OptionSpec } from "../config/options.js";
import { loadOnce } from "../lifecycle/load-once.js";
import { concatBytes, runtimeGzip } from "../transport/compress.js";
import { encodeTraceRequestPieces } from "./otlp-json.js";
import type { ExportItem } from "./otlp-request.js";

/** The OTLP/HTTP encoding of span exports: OTLP/JSON or OTLP/protobuf. */
export type OtlpProtocol = "http/json" | "http/protobuf";

/** The content type of each protocol's request body. */
export const OTLP_CONTENT_TYPES: Record<OtlpProtocol, string> = {
  "http/json": "application/json",
  "http/protobuf": "application/x-protobuf",
};

/** The option, then OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL, `http/json` (not `grpc`). */
export function protocolOption(): OptionSpec<OtlpProtocol> {
  return enumOption<OtlpProtocol, OtlpProtocol>(["http/json", "http/protobuf"], "http/json", [
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
  ]);
}

/**
 * The compression of span exports, for the span processor and the doctor's test span: the option, then
 * SVC_OTEL_COMPRESSION, OTEL_EXPORTER_OTLP_TRACES_COMPRESSION, OTEL_EXPORTER_OTLP_COMPRESSION (any case), then `gzip`.
 */
export function compressionOption(): OptionSpec<"gzip" | "none"> {
  return enumOption<"gzip" | "none", "gzip">(["gzip", "none"], "gzip", [
    "SVC_OTEL_COMPRESSION",
    "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
    "OTEL_EXPORTER_OTLP_COMPRESSION",
  ]);
}

/** The OTLP/protobuf encoder (opt-in), loaded with the first batch that needs it. */
const protobufEncoder = loadOnce(() =>
  import("./otlp-protobuf.js").then((module) => module.encodeTraceRequestProtobuf),
);

/**
 * Encodes ended spans as one OTLP body (`bytes`), gzipped when asked for and the runtime can (`gzipped`). Throws when
 * it cannot encode.
 */
export async function encodeTraces(
  items: readonly ExportItem[],
  protocol: OtlpProtocol,
  compression: "gzip" | "none",
): Promise<{ bytes: Uint8Array; gzipped: boolean }> {
  const pieces = protocol === "http/json" ? encodeTraceRequestPieces(items) : (await protobufEncoder())(items);
  const gzip = compression === "gzip" ? runtimeGzip() : null;
  if (!gzip) return { bytes: joinPieces(pieces), gzipped: false };
  return { bytes: await gzip(pieces), gzipped: true };
}

/** The pieces of an uncompressed body as one array of bytes (text as UTF-8). */
function joinPieces(pieces: Iterator<string | Uint8Array>): Uint8Array {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next = pieces.next(); !next.done; next = pieces.next()) {
    const bytes = typeof next.value === "string" ? encoder.encode(next.value) : next.value;
    chunks.push(bytes);
    size += bytes.byteLength;
  }
  return concatBytes(chunks, size);
}
