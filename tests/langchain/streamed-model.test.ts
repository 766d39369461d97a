import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { jsonAttribute } from "../support/langchain.ts";
import { useInMemoryTracing } from "../support/tracing.ts";

const tracing = useInMemoryTracing();

/**
 * A chat model that streams as `@langchain/openai` 1.5.8 streams Chat Completions (`_streamResponseChunks`): the model
 * that answered only in the `generationInfo.model_name` of the chunk with the finish reason; or as
 * `@langchain/anthropic` 1.5.11 streams Messages: the model in the `additional_kwargs` of the `message_start` chunk.
 */
class StreamingChatModel extends BaseChatModel {
  constructor(private readonly provider: "openai" | "anthropic") {
    super({});
  }

  _llmType(): string {
    return `streaming-${this.provider}`;
  }

  override invocationParams(): Record<string, unknown> {
    return { model: this.provider === "openai" ? "gpt-5" : "claude-sonnet-4-5" };
  }

  async _generate(): Promise<ChatResult> {
    throw new Error("this model only streams");
  }

  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const chunks =
      this.provider === "openai"
        ? [
            new ChatGenerationChunk({ text: "Hel", message: new AIMessageChunk("Hel"), generationInfo: { prompt: 0 } }),
            new ChatGenerationChunk({
              text: "lo",
              message: new AIMessageChunk("lo"),
              generationInfo: { prompt: 0, finish_reason: "stop", model_name: "gpt-5-2025-08-07" },
            }),
          ]
        : [
            new ChatGenerationChunk({
              text: "",
              message: new AIMessageChunk({
                content: "",
                additional_kwargs: {
                  id: "msg_1",
                  type: "message",
                  role: "assistant",
                  model: "claude-sonnet-4-5-20250929",
                },
                response_metadata: { model_provider: "anthropic" },
              }),
            }),
            new ChatGenerationChunk({ text: "Hello", message: new AIMessageChunk("Hello") }),
          ];
    for (const chunk of chunks) {
      yield chunk;
      await runManager?.handleLLMNewToken(chunk.text);
    }
  }
}

function graphOf(model: BaseChatModel) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile();
}

describe("CallbackHandler with a model streamed by LangGraph", () => {
  for (const [provider, requested, answered] of [
    ["openai", "gpt-5", "gpt-5-2025-08-07"],
    ["anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929"],
  ] as const)
    it(`records the model that answered, not the one requested (${provider})`, async () => {
      const handler = new CallbackHandler();
      const graph = graphOf(new StreamingChatModel(provider));

      for await (const _ of await graph.stream(
        { messages: [new HumanMessage("Hi")] },
        { callbacks: [handler], streamMode: "messages" },
      ));

      const generation = tracing.span("StreamingChatModel");
      expect(generation.attributes[A.OBSERVATION_MODEL]).toBe(answered);
      expect(answered).not.toBe(requested);
    });
});

describe("CallbackHandler and tool messages", () => {
  it("keeps the tool_call_id of a ToolMessage in the recorded input", async () => {
    const handler = new CallbackHandler();
    const graph = graphOf(new StreamingChatModel("openai"));
    const messages = [
      new HumanMessage("Add 1 and 2"),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "call_1", name: "add", args: { a: 1, b: 2 }, type: "tool_call" }],
      }),
      new ToolMessage({ content: "3", tool_call_id: "call_1", name: "add" }),
    ];

    for await (const _ of await graph.stream({ messages }, { callbacks: [handler], streamMode: "messages" }));

    const input = jsonAttribute(tracing.span("StreamingChatModel"), A.OBSERVATION_INPUT) as unknown[];
    expect(input.at(-1)).toEqual({ role: "add", content: "3", tool_call_id: "call_1", additional_kwargs: {} });
  });
});
