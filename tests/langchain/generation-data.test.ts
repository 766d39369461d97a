import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import {
  chatModelInput,
  extractUsageDetails,
  generationOutput,
  modelNameAtEnd,
  modelNameAtStart,
  modelParameters,
} from "../../packages/langchain/src/internal/model.ts";

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
