import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { installSvcTestKit } from "@svc/otel/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  aiSdkLegacyEmbed,
  aiSdkLegacyGenerate,
  aiSdkOtelChat,
  aiSdkOtelTool,
  anthropicSdkMessage,
  ingestRaw,
  type LibrarySpan,
  openInferenceAnthropicMessage,
  openInferenceOpenAIChat,
  openInferenceOpenAIResponses,
  type ReadObservation,
  svcToDevServer,
  traceloopAnthropicMessage,
} from "../support/llm-spans.ts";

// Each library's spans for one call to the mock, through a default SvcSpanProcessor to the dev server. The expected
// usage is worked out by hand from the mock's answer and the server's documented buckets: `input` is the input left
// after the cache (cache read and creation are details of it, counted once), `output` the output left after
// reasoning, `total` what the provider counted in all.

async function one(span: LibrarySpan): Promise<ReadObservation> {
  const { record } = await svcToDevServer();
  const [observation, ...more] = await record(span);
  expect(more).toEqual([]);
  return observation as ReadObservation;
}

/** OpenAI Chat Completions: 1,200 in of which 1,024 cached, 300 out of which 128 reasoning, 1,500 in all. */
const OPENAI_CHAT_USAGE = {
  input: 176,
  input_cached_tokens: 1024,
  output: 172,
  output_reasoning_tokens: 128,
  total: 1500,
};
/** Anthropic: 200 fresh + 300 cache creation + 1,000 cache read in, 150 out: 1,650 in all. */
const ANTHROPIC_USAGE = { input: 200, input_cache_creation: 300, input_cached_tokens: 1000, output: 150, total: 1650 };

describe("LLM spans read as the server reads them, through SvcSpanProcessor to the dev server", () => {
  it("OpenInference OpenAI Chat: a generation with the response model, input.value, output.value and the cache and reasoning details", async () => {
    const chat = await one(openInferenceOpenAIChat);

    expect(chat).toMatchObject({
      type: "GENERATION",
      providedModelName: "gpt-5-2025-08-07",
      input: openInferenceOpenAIChat.attributes["input.value"],
      output: openInferenceOpenAIChat.attributes["output.value"],
    });
    // The audio counts (0) stay: the server files `completion_details.audio` as output audio and keeps the prompt's
    // audio count, a spelling it does not know, as a bucket of its own.
    expect(chat.usageDetails).toEqual({ ...OPENAI_CHAT_USAGE, output_audio_tokens: 0, "prompt_details.audio": 0 });
  });

  it("OpenInference OpenAI Responses: 1,100 in of which 1,000 cached, 250 out of which 100 reasoning", async () => {
    const responses = await one(openInferenceOpenAIResponses);

    expect(responses.usageDetails).toEqual({
      input: 100,
      input_cached_tokens: 1000,
      output: 150,
      output_reasoning_tokens: 100,
      total: 1350,
    });
  });

  it("the Anthropic SDK's own span: its input includes the cache, its cache creation has a spelling of its own", async () => {
    const message = await one(anthropicSdkMessage);

    expect(message).toMatchObject({
      type: "GENERATION",
      providedModelName: "claude-sonnet-4-5-20250929",
      input: anthropicSdkMessage.attributes["gen_ai.input.messages"],
      output: anthropicSdkMessage.attributes["gen_ai.output.messages"],
    });
    expect(message.usageDetails).toEqual(ANTHROPIC_USAGE);
  });

  it("OpenInference's Anthropic span: its prompt count includes both cache counts", async () => {
    const message = await one(openInferenceAnthropicMessage);

    expect(message).toMatchObject({ type: "GENERATION", providedModelName: "claude-sonnet-4-5-20250929" });
    expect(message.usageDetails).toEqual(ANTHROPIC_USAGE);
  });

  it("Traceloop's Anthropic span: its input leaves the cache out, and is not reduced by it", async () => {
    const message = await one(traceloopAnthropicMessage);

    expect(message.usageDetails).toEqual(ANTHROPIC_USAGE);
  });

  it("the AI SDK's @ai-sdk/otel chat span: the cache read recorded as a detail of the input", async () => {
    const chat = await one(aiSdkOtelChat);

    expect(chat).toMatchObject({ type: "GENERATION", providedModelName: "gpt-5-2025-08-07" });
    // This integration puts no reasoning count under gen_ai.usage: the output stays whole.
    expect(chat.usageDetails).toEqual({ input: 176, input_cached_tokens: 1024, output: 300, total: 1500 });
  });

  it("the AI SDK's @ai-sdk/otel tool span: a tool with the call's arguments as input and its result as output", async () => {
    const tool = await one(aiSdkOtelTool);

    expect(tool).toMatchObject({
      type: "TOOL",
      input: '{"city":"Paris"}',
      output: '{"forecast":"sunny"}',
      usageDetails: {},
    });
  });

  it("the AI SDK's legacy doGenerate span: cache and reasoning from ai.usage.*, the prompt and the response text", async () => {
    const call = await one(aiSdkLegacyGenerate);

    expect(call).toMatchObject({
      type: "GENERATION",
      providedModelName: "gpt-5-2025-08-07",
      input: aiSdkLegacyGenerate.attributes["ai.prompt.messages"],
      output: "Hello",
    });
    expect(call.usageDetails).toEqual(OPENAI_CHAT_USAGE);
  });

  it("the AI SDK's legacy doEmbed span: an embedding whose ai.usage.tokens are its input", async () => {
    const embed = await one(aiSdkLegacyEmbed);

    expect(embed).toMatchObject({ type: "EMBEDDING", providedModelName: "text-embedding-3-small" });
    expect(embed.usageDetails).toEqual({ input: 8, total: 8 });
  });

  it("the AI SDK's legacy span with Anthropic's cache in its provider metadata, an input that leaves the cache out", async () => {
    const call = await one({
      scope: "ai",
      name: "ai.generateText.doGenerate",
      attributes: {
        "ai.operationId": "ai.generateText.doGenerate",
        "ai.model.id": "claude-sonnet-4-5",
        "gen_ai.response.model": "claude-sonnet-4-5-20250929",
        "gen_ai.usage.input_tokens": 200,
        "gen_ai.usage.output_tokens": 150,
        "ai.usage.cachedInputTokens": 1000,
        "ai.response.providerMetadata": JSON.stringify({
          anthropic: {
            usage: {
              input_tokens: 200,
              cache_creation_input_tokens: 300,
              cache_read_input_tokens: 1000,
              output_tokens: 150,
            },
            cacheCreationInputTokens: 300,
          },
        }),
      },
    });

    expect(call.usageDetails).toEqual(ANTHROPIC_USAGE);
  });

  it("the same spans sent raw by another exporter read the same in the dev server", async () => {
    const { server, record } = await svcToDevServer();
    for (const span of [openInferenceOpenAIChat, anthropicSdkMessage, traceloopAnthropicMessage, aiSdkLegacyGenerate]) {
      const [viaSdk] = await record(span);
      const [raw] = await ingestRaw(server, span);
      const fields = (o: ReadObservation | undefined) =>
        o && [o.type, o.providedModelName, o.usageDetails, o.input, o.output];

      expect(fields(raw), span.name).toEqual(fields(viaSdk));
    }
  });

  it("OpenInference span kinds and GenAI operations give the server's observation types", async () => {
    const { server } = await svcToDevServer();
    const cases: [Record<string, string>, string][] = [
      [{ "openinference.span.kind": "CHAIN" }, "CHAIN"],
      [{ "openinference.span.kind": "AGENT" }, "AGENT"],
      [{ "openinference.span.kind": "TOOL" }, "TOOL"],
      [{ "openinference.span.kind": "RETRIEVER" }, "RETRIEVER"],
      [{ "openinference.span.kind": "EMBEDDING" }, "EMBEDDING"],
      [{ "openinference.span.kind": "RERANKER" }, "SPAN"],
      [{ "gen_ai.operation.name": "text_completion" }, "GENERATION"],
      [{ "gen_ai.operation.name": "generate_content" }, "GENERATION"],
      [{ "gen_ai.operation.name": "embeddings" }, "EMBEDDING"],
      [{ "gen_ai.operation.name": "invoke_agent" }, "AGENT"],
      [{ "gen_ai.tool.name": "search" }, "TOOL"],
      [{ "llm.model_name": "m" }, "GENERATION"],
    ];
    for (const [attributes, type] of cases) {
      const [observation] = await ingestRaw(server, {
        scope: "@arizeai/openinference-instrumentation-x",
        name: "s",
        attributes,
      });

      expect(observation?.type, JSON.stringify(attributes)).toBe(type);
    }
  });
});

describe("LLM spans read as the server reads them, in the test kit", () => {
  it("shows each library's call with its type, the model that answered, parsed input and output, and usage", async () => {
    const kit = installSvcTestKit({ provider: BasicTracerProvider });
    onTestFinished(() => kit.uninstall());
    for (const span of [openInferenceOpenAIChat, anthropicSdkMessage, aiSdkLegacyGenerate, aiSdkOtelTool])
      kit.provider.getTracer(span.scope).startSpan(span.name, { attributes: span.attributes }).end();

    const { one } = await kit.collect();

    expect(one("OpenAI Chat Completions")).toMatchObject({
      type: "generation",
      model: "gpt-5-2025-08-07",
      input: { model: "gpt-5", messages: [{ role: "user", content: "Hi" }] },
      usage: { ...OPENAI_CHAT_USAGE, output_audio_tokens: 0, "prompt_details.audio": 0 },
    });
    expect(one("anthropic.messages.create")).toMatchObject({
      type: "generation",
      model: "claude-sonnet-4-5-20250929",
      output: [{ role: "assistant", parts: [{ type: "text", content: "Hello" }], finish_reason: "stop" }],
      usage: ANTHROPIC_USAGE,
    });
    expect(one("ai.generateText.doGenerate")).toMatchObject({
      type: "generation",
      output: "Hello",
      usage: OPENAI_CHAT_USAGE,
    });
    expect(one("execute_tool weather")).toMatchObject({
      type: "tool",
      input: { city: "Paris" },
      output: { forecast: "sunny" },
    });
  });
});
