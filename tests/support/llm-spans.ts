import { type Attributes, context, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { onTestFinished } from "vitest";
import { hexId, otlpJsonExport, type SpanSpec, type TestDevServer, useDevServer } from "./dev-server.ts";

// Spans as LLM libraries emit them for one call to a mock provider, attribute by attribute as each library's published
// build sets them (read in the package: the version is named beside each). The mock's answers:
//   OpenAI Chat Completions: prompt_tokens 1,200 (cached_tokens 1,024), completion_tokens 300 (reasoning_tokens 128).
//   OpenAI Responses: input_tokens 1,100 (cached 1,000), output_tokens 250 (reasoning 100).
//   Anthropic Messages: input_tokens 200, cache_creation_input_tokens 300, cache_read_input_tokens 1,000, output 150
//   (Anthropic's input_tokens leaves the cache out: 1,500 tokens were read in all).

/** One span of a library: its scope, name and attributes, and the spans it wraps. */
export interface LibrarySpan {
  scope: string;
  name: string;
  attributes: Attributes;
  children?: LibrarySpan[];
}

const CHAT_REQUEST = JSON.stringify({ model: "gpt-5", messages: [{ role: "user", content: "Hi" }] });
const CHAT_RESPONSE = JSON.stringify({
  id: "chatcmpl-1",
  model: "gpt-5-2025-08-07",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }],
  usage: {
    prompt_tokens: 1200,
    completion_tokens: 300,
    total_tokens: 1500,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 128, audio_tokens: 0 },
  },
});

/** `@arizeai/openinference-instrumentation-openai` 4.2.7, `chat.completions.create` (getUsageAttributes). */
export const openInferenceOpenAIChat: LibrarySpan = {
  scope: "@arizeai/openinference-instrumentation-openai",
  name: "OpenAI Chat Completions",
  attributes: {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-5-2025-08-07", // the request's model at start, the response's at the end
    "input.value": CHAT_REQUEST,
    "input.mime_type": "application/json",
    "llm.invocation_parameters": "{}",
    "llm.system": "openai",
    "llm.provider": "openai",
    "llm.input_messages.0.message.role": "user",
    "llm.input_messages.0.message.content": "Hi",
    "output.value": CHAT_RESPONSE,
    "output.mime_type": "application/json",
    "llm.output_messages.0.message.role": "assistant",
    "llm.output_messages.0.message.content": "Hello",
    "llm.token_count.completion": 300,
    "llm.token_count.prompt": 1200,
    "llm.token_count.total": 1500,
    "llm.token_count.prompt_details.cache_read": 1024,
    "llm.token_count.prompt_details.audio": 0,
    "llm.token_count.completion_details.audio": 0,
    "llm.token_count.completion_details.reasoning": 128,
  },
};

/** The same instrumentation, `responses.create` (getResponsesUsageAttributes). */
export const openInferenceOpenAIResponses: LibrarySpan = {
  scope: "@arizeai/openinference-instrumentation-openai",
  name: "OpenAI Responses",
  attributes: {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-5-2025-08-07",
    "input.value": JSON.stringify({ model: "gpt-5", input: "Hi" }),
    "input.mime_type": "application/json",
    "llm.system": "openai",
    "llm.provider": "openai",
    "output.value": JSON.stringify({ id: "resp_1", model: "gpt-5-2025-08-07", output_text: "Hello" }),
    "output.mime_type": "application/json",
    "llm.token_count.completion": 250,
    "llm.token_count.prompt": 1100,
    "llm.token_count.total": 1350,
    "llm.token_count.prompt_details.cache_read": 1000,
    "llm.token_count.completion_details.reasoning": 100,
  },
};

const ANTHROPIC_INPUT = '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]';
const ANTHROPIC_OUTPUT = '[{"role":"assistant","parts":[{"type":"text","content":"Hello"}],"finish_reason":"stop"}]';

/**
 * `@anthropic-ai/sdk` 1.14.0, its own tracing of `messages.create` (SPAN_ATTRIBUTES, setUsageSumAttributes: the input
 * is the sum of input_tokens and both cache counts), with content capture on.
 */
export const anthropicSdkMessage: LibrarySpan = {
  scope: "com.anthropic.sdk.typescript",
  name: "anthropic.messages.create",
  attributes: {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "anthropic",
    "gen_ai.request.model": "claude-sonnet-4-5",
    "gen_ai.request.max_tokens": 1024,
    "gen_ai.response.id": "msg_1",
    "gen_ai.response.model": "claude-sonnet-4-5-20250929",
    "gen_ai.usage.cache_write.input_tokens": 300,
    "gen_ai.usage.cache_read.input_tokens": 1000,
    "gen_ai.usage.output_tokens": 150,
    "gen_ai.usage.input_tokens": 1500,
    "anthropic.message.stop_reason": "end_turn",
    "gen_ai.input.messages": ANTHROPIC_INPUT,
    "gen_ai.output.messages": ANTHROPIC_OUTPUT,
  },
};

/** `@traceloop/instrumentation-anthropic` 0.27.0, `messages.create` (its input is Anthropic's input_tokens, cache left out). */
export const traceloopAnthropicMessage: LibrarySpan = {
  scope: "@traceloop/instrumentation-anthropic",
  name: "chat claude-sonnet-4-5",
  attributes: {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "anthropic",
    "gen_ai.request.model": "claude-sonnet-4-5",
    "gen_ai.request.max_tokens": 1024,
    "gen_ai.response.model": "claude-sonnet-4-5-20250929",
    "gen_ai.response.finish_reasons": ["stop"],
    "gen_ai.usage.total_tokens": 350,
    "gen_ai.usage.output_tokens": 150,
    "gen_ai.usage.input_tokens": 200,
    "gen_ai.usage.cache_creation.input_tokens": 300,
    "gen_ai.usage.cache_read.input_tokens": 1000,
    "gen_ai.input.messages": ANTHROPIC_INPUT,
    "gen_ai.output.messages": ANTHROPIC_OUTPUT,
  },
};

/**
 * `@arizeai/openinference-instrumentation-anthropic` 0.2.8, `messages.create`: its prompt count adds both cache counts
 * to Anthropic's input_tokens (the OpenInference spec counts `prompt_details.*` inside `llm.token_count.prompt`).
 */
export const openInferenceAnthropicMessage: LibrarySpan = {
  scope: "@arizeai/openinference-instrumentation-anthropic",
  name: "Anthropic Messages",
  attributes: {
    "openinference.span.kind": "LLM",
    "llm.model_name": "claude-sonnet-4-5-20250929",
    "llm.system": "anthropic",
    "llm.provider": "anthropic",
    "input.value": JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Hi" }],
    }),
    "input.mime_type": "application/json",
    "output.value": JSON.stringify({
      id: "msg_1",
      model: "claude-sonnet-4-5-20250929",
      content: [{ type: "text", text: "Hello" }],
    }),
    "output.mime_type": "application/json",
    "llm.token_count.prompt": 1500,
    "llm.token_count.completion": 150,
    "llm.token_count.total": 1650,
    "llm.token_count.prompt_details.cache_write": 300,
    "llm.token_count.prompt_details.cache_read": 1000,
  },
};

/** `@ai-sdk/otel` 1.0.173 (scope `gen_ai`), the inference span of `generateText` with OpenAI Chat (onStepEnd). */
export const aiSdkOtelChat: LibrarySpan = {
  scope: "gen_ai",
  name: "chat gpt-5",
  attributes: {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-5",
    "gen_ai.response.id": "chatcmpl-1",
    "gen_ai.response.model": "gpt-5-2025-08-07",
    "gen_ai.response.finish_reasons": ["stop"],
    "gen_ai.usage.input_tokens": 1200,
    "gen_ai.usage.output_tokens": 300,
    "gen_ai.usage.cache_read.input_tokens": 1024,
    "gen_ai.input.messages": '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]',
    "gen_ai.output.messages":
      '[{"role":"assistant","parts":[{"type":"text","content":"Hello"}],"finish_reason":"stop"}]',
  },
};

/** `@ai-sdk/otel` 1.0.173, a tool's span (executeTool: `gen_ai.tool.call.arguments` and `.result`, JSON text). */
export const aiSdkOtelTool: LibrarySpan = {
  scope: "gen_ai",
  name: "execute_tool weather",
  attributes: {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "weather",
    "gen_ai.tool.call.id": "call_1",
    "gen_ai.tool.call.arguments": '{"city":"Paris"}',
    "gen_ai.tool.call.result": '{"forecast":"sunny"}',
  },
};

/** The AI SDK's legacy integration (scope `ai`), `ai.generateText.doGenerate` with OpenAI Chat, its v6 usage names. */
export const aiSdkLegacyGenerate: LibrarySpan = {
  scope: "ai",
  name: "ai.generateText.doGenerate",
  attributes: {
    "operation.name": "ai.generateText.doGenerate",
    "ai.operationId": "ai.generateText.doGenerate",
    "ai.model.provider": "openai.chat",
    "ai.model.id": "gpt-5",
    "ai.prompt.messages": '[{"role":"user","content":[{"type":"text","text":"Hi"}]}]',
    "ai.response.text": "Hello",
    "ai.response.finishReason": "stop",
    "ai.response.model": "gpt-5-2025-08-07",
    "ai.usage.inputTokens": 1200,
    "ai.usage.outputTokens": 300,
    "ai.usage.totalTokens": 1500,
    "ai.usage.inputTokenDetails.noCacheTokens": 176,
    "ai.usage.inputTokenDetails.cacheReadTokens": 1024,
    "ai.usage.outputTokenDetails.textTokens": 172,
    "ai.usage.outputTokenDetails.reasoningTokens": 128,
    "gen_ai.system": "openai.chat",
    "gen_ai.request.model": "gpt-5",
    "gen_ai.response.model": "gpt-5-2025-08-07",
    "gen_ai.usage.input_tokens": 1200,
    "gen_ai.usage.output_tokens": 300,
  },
};

/** The legacy integration, `ai.embed.doEmbed`: its only count is `ai.usage.tokens`. */
export const aiSdkLegacyEmbed: LibrarySpan = {
  scope: "ai",
  name: "ai.embed.doEmbed",
  attributes: {
    "operation.name": "ai.embed.doEmbed",
    "ai.operationId": "ai.embed.doEmbed",
    "ai.model.provider": "openai.embedding",
    "ai.model.id": "text-embedding-3-small",
    "ai.values": ['"sunny day"'],
    "ai.usage.tokens": 8,
  },
};

/** A span ended on a provider of its own, as a filter sees it. */
export function endedSpan(scope: string, attributes: Attributes = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.getTracer(scope).startSpan("work", { attributes }).end();
  const [span] = exporter.getFinishedSpans();
  if (!span) throw new Error("no span");
  return span;
}

/** Observations of a trace as the dev server's read route returns them, with the fields these tests read. */
export interface ReadObservation {
  id: string;
  name: string;
  type: string;
  parentObservationId: string | null;
  providedModelName: string | null;
  usageDetails: Record<string, number>;
  input: unknown;
  output: unknown;
}

/** A dev server on loopback, and a tracer provider whose only processor is a default SvcSpanProcessor sending to it. */
export async function svcToDevServer() {
  const server = await useDevServer();
  const processor = new SvcSpanProcessor(
    { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey },
    {},
  );
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  return {
    server,
    processor,
    /** Ends the library's spans (children inside their parent), flushes, and returns the trace's observations. */
    async record(span: LibrarySpan): Promise<ReadObservation[]> {
      const traceId = emit(provider, span, context.active());
      await processor.forceFlush();
      return readTrace(server, traceId);
    },
  };
}

function emit(provider: BasicTracerProvider, span: LibrarySpan, parent: ReturnType<typeof context.active>): string {
  const started = provider.getTracer(span.scope).startSpan(span.name, { attributes: span.attributes }, parent);
  const inside = trace.setSpan(parent, started);
  for (const child of span.children ?? []) emit(provider, child, inside);
  started.end();
  return started.spanContext().traceId;
}

/** Posts the spans as raw OTLP/JSON, as an exporter other than the SDK's would, and returns the trace's observations. */
export async function ingestRaw(server: TestDevServer, span: LibrarySpan): Promise<ReadObservation[]> {
  const traceId = hexId(16);
  const res = await server.request("POST", "/api/public/otel/v1/traces", {
    body: otlpJsonExport(
      [{ traceId, spanId: hexId(8), name: span.name, attributes: span.attributes as SpanSpec["attributes"] }],
      span.scope,
    ),
  });
  if (res.status !== 200) throw new Error(`OTLP ingest answered ${res.status}`);
  return readTrace(server, traceId);
}

async function readTrace(server: TestDevServer, traceId: string): Promise<ReadObservation[]> {
  const res = await server.request(
    "GET",
    `/api/public/v2/observations?traceId=${traceId}&fields=core,basic,io,model,usage`,
  );
  if (res.status !== 200) throw new Error(`observations answered ${res.status}`);
  return res.body.data as ReadObservation[];
}
