import { enumOption, type OptionSpec } from "./options.js";

/** Environment variables read for the compression of span exports, first valid value wins. */
export const COMPRESSION_ENV_VARS = [
  "SVC_OTEL_COMPRESSION",
  "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
  "OTEL_EXPORTER_OTLP_COMPRESSION",
] as const;

/**
 * The compression of span exports: the option, then `COMPRESSION_ENV_VARS` in order (any case), then `gzip`.
 * One rule for the span processor and the doctor's test span.
 */
export function compressionOption(): OptionSpec<"gzip" | "none"> {
  return enumOption<"gzip" | "none", "gzip">(["gzip", "none"], "gzip", COMPRESSION_ENV_VARS);
}
