import { type ReadableSpan, SVC_TRACER_NAME } from "@svc/core";

/**
 * Instrumentation scopes whose spans are exported by default: the SDK's own tracer first, then known LLM
 * instrumentation libraries, JavaScript (package names) and Python (module names). A scope matches a prefix when it
 * equals it or starts with `<prefix>.`; a prefix ending in `*` matches every scope that starts with what precedes the
 * `*`; the prefix `ai` (the AI SDK's legacy integration) matches only exactly.
 */
export const KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES: readonly string[] = [
  SVC_TRACER_NAME,
  // JavaScript: OpenInference (OpenAI, Anthropic, LangChain, MCP, the OpenAI Agents SDK's bridge...), Traceloop
  // (OpenLLMetry, MCP included), the OpenTelemetry OpenAI instrumentation, the Anthropic SDK's own tracing (with a
  // `.<platform>` suffix for Bedrock and Vertex), the AI SDK (`ai`, legacy) and its `@ai-sdk/otel` integration (`gen_ai`).
  "@arizeai/openinference-instrumentation-*",
  "@traceloop/instrumentation-*",
  "@opentelemetry/instrumentation-openai",
  "com.anthropic.sdk.typescript",
  "ai",
  "gen_ai",
  // Python.
  "agent_framework",
  "haystack",
  "langsmith",
  "litellm",
  "openinference",
  "opentelemetry.instrumentation.anthropic",
  "opentelemetry.instrumentation.aws_bedrock",
  "opentelemetry.instrumentation.bedrock",
  "opentelemetry.instrumentation.gemini",
  "opentelemetry.instrumentation.google_genai",
  "opentelemetry.instrumentation.google_generativeai",
  "opentelemetry.instrumentation.mcp",
  "opentelemetry.instrumentation.openai",
  "opentelemetry.instrumentation.openai_v2",
  "opentelemetry.instrumentation.vertex_ai",
  "opentelemetry.instrumentation.vertexai",
  "strands-agents",
  "vllm",
];

/** The name of the instrumentation scope that made a span (`instrumentationLibrary` on OpenTelemetry 1.x). */
export function scopeName(span: ReadableSpan): string {
  return span.instrumentationScope?.name ?? span.instrumentationLibrary?.name ?? "";
}

/** True for spans created by the svc SDK's tracer. */
export function isSvcSpan(span: ReadableSpan): boolean {
  return scopeName(span) === SVC_TRACER_NAME;
}

/** True for spans that carry any `gen_ai.*` attribute. */
export function isGenAISpan(span: ReadableSpan): boolean {
  for (const key in span.attributes) if (key.startsWith("gen_ai.")) return true;
  return false;
}

// The prefixes as one test, compiled once: checking each prefix built a string per prefix for every foreign span.
const EXACT = KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES.filter((p) => p !== "ai" && !p.endsWith("*")).map(escapeRegExp);
const STEMS = KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES.filter((p) => p.endsWith("*")).map((p) =>
  escapeRegExp(p.slice(0, -1)),
);
const KNOWN_SCOPE = new RegExp(`^(?:ai|(?:${EXACT.join("|")})(?:\\..*)?|(?:${STEMS.join("|")}).*)$`, "s");

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** True for spans from a scope in {@link KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES}. */
export function isKnownLLMInstrumentor(span: ReadableSpan): boolean {
  return KNOWN_SCOPE.test(scopeName(span));
}

/** The default export filter: svc spans, GenAI spans and spans of known LLM instrumentation. */
export function isDefaultExportSpan(span: ReadableSpan): boolean {
  return isSvcSpan(span) || isGenAISpan(span) || isKnownLLMInstrumentor(span);
}
