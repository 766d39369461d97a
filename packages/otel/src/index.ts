export type {
  MaskFunction,
  ShouldExportSpan,
  SpanCompression,
  SpanExporterLike,
  SpanExportMode,
  SpanExportResult,
  SvcSpanProcessorConfig,
  SvcSpanProcessorParams,
} from "./config.js";
export { resolveProcessorConfig } from "./config.js";
export type { ReadableSpan } from "./readable-span.js";
export {
  isDefaultExportSpan,
  isGenAISpan,
  isKnownLLMInstrumentor,
  isSvcSpan,
  KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES,
} from "./span-filter.js";
export type { StartedSpan } from "./span-processor.js";
export { SvcSpanProcessor } from "./span-processor.js";
