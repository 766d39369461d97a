import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import { context, propagation, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcSpanProcessor } from "@svc/otel";
import { embed, generateText, registerTelemetry } from "ai";
import { MockEmbeddingModelV4, MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { useDevServer } from "../support/dev-server.ts";
import type { ReadObservation } from "../support/llm-spans.ts";

// The real AI SDK (both integrations) with a mock model that reports what OpenAI Chat Completions reports: 1,200 input
// tokens of which 1,024 cached, 300 output tokens of which 128 reasoning. Expected usage, by hand: input 176 fresh +
// 1,024 cached, output 172 + 128 reasoning, 1,500 in all.

afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

function openAiLikeModel() {
  return new MockLanguageModelV4({
    modelId: "gpt-5",
    doGenerate: async () => ({
      content: [{ type: "text", text: "Hello" }],
      finishReason: { unified: "stop", raw: "stop" },
      response: { id: "chatcmpl-1", modelId: "gpt-5-2025-08-07", timestamp: new Date(0) },
      usage: {
        inputTokens: { total: 1200, noCache: 176, cacheRead: 1024, cacheWrite: undefined },
        outputTokens: { total: 300, text: 172, reasoning: 128 },
      },
      warnings: [],
    }),
  });
}

async function setUp(telemetry: OpenTelemetry | LegacyOpenTelemetry) {
  const server = await useDevServer();
  const processor = new SvcSpanProcessor(
    { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey },
    {},
  );
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  provider.register();
  onTestFinished(() => provider.shutdown());
  registerTelemetry(telemetry);
  return {
    async observations(): Promise<ReadObservation[]> {
      await provider.forceFlush();
      const traceIds = new Set([...server.store.spans.values()].map((s) => s.traceId));
      expect(traceIds.size).toBe(1);
      const res = await server.request(
        "GET",
        `/api/public/v2/observations?traceId=${[...traceIds][0]}&fields=core,basic,io,model,usage`,
      );
      return res.body.data as ReadObservation[];
    },
  };
}

const total = (list: ReadObservation[]) => list.reduce((sum, o) => sum + (o.usageDetails.total ?? 0), 0);

describe("the real AI SDK 7: cache and reasoning recorded, the call counted once", () => {
  it("@ai-sdk/otel: the cache read is a detail of the input; the trace totals 1,500", async () => {
    const { observations } = await setUp(new OpenTelemetry());

    await generateText({ model: openAiLikeModel(), prompt: "Hi" });

    const list = await observations();
    const chat = list.find((o) => o.type === "GENERATION");
    expect(chat?.providedModelName).toBe("gpt-5-2025-08-07");
    // This integration writes no reasoning count under gen_ai.usage, which is what the server reads for its scope.
    expect(chat?.usageDetails).toEqual({ input: 176, input_cached_tokens: 1024, output: 300, total: 1500 });
    expect(total(list)).toBe(1500);
  });

  it("the legacy integration: cache and reasoning from ai.usage.*; the trace totals 1,500", async () => {
    const { observations } = await setUp(new LegacyOpenTelemetry());

    await generateText({ model: openAiLikeModel(), prompt: "Hi", experimental_telemetry: { isEnabled: true } });

    const list = await observations();
    const call = list.find((o) => o.name === "ai.generateText.doGenerate");
    expect(call).toMatchObject({ type: "GENERATION", providedModelName: "gpt-5-2025-08-07" });
    expect(call?.usageDetails).toEqual({
      input: 176,
      input_cached_tokens: 1024,
      output: 172,
      output_reasoning_tokens: 128,
      total: 1500,
    });
    expect(total(list)).toBe(1500);
  });

  it("the legacy integration: an embedding's tokens are its input", async () => {
    const { observations } = await setUp(new LegacyOpenTelemetry());
    const model = new MockEmbeddingModelV4({
      modelId: "text-embedding-3-small",
      doEmbed: async () => ({ embeddings: [[0.1, 0.2]], usage: { tokens: 8 }, warnings: [] }),
    });

    await embed({ model, value: "sunny day", experimental_telemetry: { isEnabled: true } });

    const list = await observations();
    const call = list.find((o) => o.name === "ai.embed.doEmbed");
    expect(call).toMatchObject({ type: "EMBEDDING", providedModelName: "text-embedding-3-small" });
    expect(call?.usageDetails).toEqual({ input: 8, total: 8 });
    expect(total(list)).toBe(8);
  });
});
