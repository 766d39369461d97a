import type { Serialized } from "@langchain/core/load/serializable";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { useInMemoryTracing } from "../support/tracing.ts";

// What a CallbackHandler records of a chat model run: its usage, model, parameters, input and output.

const tracing = useInMemoryTracing();
const serialized: Serialized = { lc: 1, type: "not_implemented", id: ["test", "ChatModel"] };
let runs = 0;

interface ChatRun {
  messages?: BaseMessage[][];
  extraParams?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  result?: LLMResult;
}

/** The generation a chat model run records, each attribute as JSON or as its text. */
function generation({ messages = [], extraParams, metadata, result = { generations: [] } }: ChatRun) {
  const handler = new CallbackHandler();
  const id = `chat-${++runs}`;
  handler.handleChatModelStart(serialized, messages, id, undefined, extraParams, undefined, metadata, id);
  handler.handleLLMEnd(result, id);
  const attributes = tracing.span(id).attributes;
  const read = (key: string): unknown => {
    const value = attributes[key];
    try {
      return JSON.parse(value as string);
    } catch {
      return value;
    }
  };
  return {
    input: read(A.OBSERVATION_INPUT),
    output: read(A.OBSERVATION_OUTPUT),
    model: read(A.OBSERVATION_MODEL),
    parameters: read(A.OBSERVATION_MODEL_PARAMETERS),
    usage: read(A.OBSERVATION_USAGE_DETAILS),
  };
}

const extractUsageDetails = (result: LLMResult) => generation({ result }).usage;
const modelNameAtStart = (extraParams?: Record<string, unknown>, metadata?: Record<string, unknown>) =>
  generation({ extraParams, metadata }).model;
const modelNameAtEnd = (result: LLMResult) => generation({ result }).model;
const modelParameters = (extraParams: Record<string, unknown>) => generation({ extraParams }).parameters;
const chatModelInput = (messages: BaseMessage[][], extraParams: Record<string, unknown> | undefined) =>
  generation({ messages, extraParams }).input;
const generationOutput = (result: LLMResult) => generation({ result }).output;

function chatResult(message: AIMessage, llmOutput?: Record<string, unknown>): LLMResult {
  return { generations: [[{ text: String(message.content), message } as never]], llmOutput };
}

describe("usage extraction", () => {
  it("reads usage_metadata and moves token details out of input and output", () => {
    const message = new AIMessage({
      content: "hi",
      usage_metadata: {
        input_tokens: 100,
        output_tokens: 40,
        total_tokens: 140,
        input_token_details: { cache_read: 30 },
        output_token_details: { reasoning: 15 },
      },
    });
    expect(extractUsageDetails(chatResult(message))).toEqual({
      input: 70,
      output: 25,
      total: 140,
      input_cache_read: 30,
      output_reasoning: 15,
    });
  });

  it("never lets a detail push a count below zero", () => {
    const message = new AIMessage({
      content: "",
      usage_metadata: { input_tokens: 5, output_tokens: 0, total_tokens: 5, input_token_details: { cache_read: 9 } },
    });
    expect(extractUsageDetails(chatResult(message))).toMatchObject({ input: 0, input_cache_read: 9 });
  });

  it("falls back to llmOutput.tokenUsage for models that report usage there", () => {
    const result: LLMResult = {
      generations: [[{ text: "x" }]],
      llmOutput: { tokenUsage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } },
    };
    expect(extractUsageDetails(result)).toEqual({ input: 3, output: 4, total: 7 });
  });

  it("returns undefined when the run reports no usage", () => {
    expect(extractUsageDetails({ generations: [[{ text: "x" }]] })).toBeUndefined();
    expect(extractUsageDetails({ generations: [] })).toBeUndefined();
  });
});

describe("model name, parameters, input and output", () => {
  it("takes the model name from invocation params, then from ls_model_name", () => {
    expect(modelNameAtStart({ invocation_params: { model: "gpt-x" } }, { ls_model_name: "other" })).toBe("gpt-x");
    expect(modelNameAtStart({ invocation_params: {} }, { ls_model_name: "fake-model" })).toBe("fake-model");
    expect(modelNameAtStart(undefined, undefined)).toBeUndefined();
  });

  it("takes the model name the provider reported at the end", () => {
    const message = new AIMessage({ content: "x", response_metadata: { model_name: "gpt-x-2025" } });
    expect(modelNameAtEnd(chatResult(message))).toBe("gpt-x-2025");
    expect(modelNameAtEnd({ generations: [[{ text: "x" }]] })).toBeUndefined();
  });

  it("keeps only the sampling parameters that are set", () => {
    const params = { invocation_params: { temperature: 0.2, max_tokens: 64, top_p: null, model: "m", stop: ["x"] } };
    expect(modelParameters(params)).toEqual({ temperature: 0.2, max_tokens: 64 });
    expect(modelParameters({ invocation_params: { model: "m" } })).toBeUndefined();
  });

  it("flattens chat input messages and adds tools when the model was given tools", () => {
    const lists = [[new SystemMessage("s")], [new HumanMessage("q")]];
    expect(chatModelInput(lists, undefined)).toEqual([
      { role: "system", content: "s" },
      { role: "user", content: "q" },
    ]);
    expect(chatModelInput(lists, { invocation_params: { tools: [{ name: "add" }], tool_choice: "auto" } })).toEqual({
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "q" },
      ],
      tools: [{ name: "add" }],
      tool_choice: "auto",
    });
  });

  it("records the converted last message as output, else the last text", () => {
    expect(generationOutput(chatResult(new AIMessage("done")))).toEqual({ role: "assistant", content: "done" });
    expect(generationOutput({ generations: [[{ text: "a" }, { text: "b" }]] })).toBe("b");
  });
});
