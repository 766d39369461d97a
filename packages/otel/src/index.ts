export type { DeliveryHealth, DropReason, ReadableSpan } from "@svc/core";
export type {
  MaskFunction,
  ShouldExportSpan,
  SpanCompression,
  SpanExporterLike,
  SpanExportMode,
  SpanExportProtocol,
  SpanExportResult,
  SvcSpanProcessorParams,
} from "./config.js";
export type { StartedSpan } from "./pipeline/start.js";
export {
  isDefaultExportSpan,
  isGenAISpan,
  isKnownLLMInstrumentor,
  isSvcSpan,
  KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES,
} from "./span-filter.js";
export { type SpanProcessorHealth, SvcSpanProcessor } from "./span-processor.js";
