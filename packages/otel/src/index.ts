export type { ReadableSpan } from "./readable-span.js";
export {
  isDefaultExportSpan,
  isGenAISpan,
  isKnownLLMInstrumentor,
  isSvcSpan,
  KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES,
} from "./span-filter.js";
