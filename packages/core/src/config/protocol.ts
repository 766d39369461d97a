import type { OtlpProtocol } from "../otlp/encode.js";
import { enumOption } from "./options.js";

/**
 * The encoding of span exports: the option, then OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, then OTEL_EXPORTER_OTLP_PROTOCOL,
 * then `http/json`; any other value, `grpc` included, is ignored with a warning.
 */
export function protocolOption() {
  return enumOption<OtlpProtocol, OtlpProtocol>(["http/json", "http/protobuf"], "http/json", [
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
  ]);
}
