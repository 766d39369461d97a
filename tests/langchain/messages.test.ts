import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import {
  AIMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { useInMemoryTracing } from "../support/tracing.ts";

// What a CallbackHandler records for the messages of a chat model run and the inputs and outputs of a chain run.

const tracing = useInMemoryTracing();
const serialized: Serialized = { lc: 1, type: "not_implemented", id: ["test", "Runnable"] };
let runs = 0;

/** An attribute as JSON, or its text when it is no JSON. */
function read(name: string, key: string): unknown {
  const value = tracing.span(name).attributes[key];
  try {
    return JSON.parse(value as string);
  } catch {
    return value;
  }
}

/** The message the handler records as the input of a chat model run given only `message`. */
function convertMessage(message: BaseMessage): unknown {
  const handler = new CallbackHandler();
  const id = `chat-${++runs}`;
  handler.handleChatModelStart(serialized, [[message]], id, undefined, undefined, undefined, undefined, id);
  handler.handleLLMEnd({ generations: [] }, id);
  return (read(id, A.OBSERVATION_INPUT) as unknown[])[0];
}

/** What the handler records of a chain run started with `inputs` (and ended with `outputs`). */
function chainRun(inputs: unknown, outputs: unknown = {}): { input: unknown; output: unknown } {
  const handler = new CallbackHandler();
  const id = `chain-${++runs}`;
  handler.handleChainStart(serialized, inputs as never, id, undefined, undefined, undefined, undefined, id);
  handler.handleChainEnd(outputs as never, id);
  return { input: read(id, A.OBSERVATION_INPUT), output: read(id, A.OBSERVATION_OUTPUT) };
}
const chainInput = (inputs: unknown) => chainRun(inputs).input;
const chainOutput = (outputs: unknown) => chainRun({}, outputs).output;

describe("message conversion", () => {
  it("maps human, system and generic messages to user, system and human roles", () => {
    expect(convertMessage(new HumanMessage("hi"))).toEqual({ role: "user", content: "hi" });
    expect(convertMessage(new SystemMessage("be brief"))).toEqual({ role: "system", content: "be brief" });
    expect(convertMessage(new ChatMessage("hey", "critic"))).toEqual({ role: "human", content: "hey" });
  });

  it("maps an AI message to the assistant role with its tool calls", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [{ id: "c-1", name: "add", args: { a: 1 }, type: "tool_call" }],
    });
    expect(convertMessage(message)).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c-1", name: "add", args: { a: 1 }, type: "tool_call" }],
    });
  });

  it("prefers the provider's raw tool calls from additional_kwargs on an AI message", () => {
    const raw = [{ id: "c-1", type: "function" as const, function: { name: "add", arguments: "{}" } }];
    const message = new AIMessage({
      content: "",
      tool_calls: [{ id: "c-1", name: "add", args: {}, type: "tool_call" }],
      additional_kwargs: { tool_calls: raw },
    });
    expect(convertMessage(message)).toEqual({ role: "assistant", content: "", tool_calls: raw });
  });

  it("leaves tool_calls out of an AI message without tool calls", () => {
    expect(convertMessage(new AIMessage("plain"))).toEqual({ role: "assistant", content: "plain" });
  });

  it("names tool and function messages by their name and keeps their additional_kwargs, and a tool message's call id", () => {
    const tool = new ToolMessage({ content: "3", tool_call_id: "c-1", name: "add" });
    expect(convertMessage(tool)).toEqual({ role: "add", content: "3", tool_call_id: "c-1", additional_kwargs: {} });
    const fn = new FunctionMessage({ content: "ok", name: "lookup" });
    expect(convertMessage(fn)).toEqual({ role: "lookup", content: "ok", additional_kwargs: {} });
  });

  it("keeps additional_kwargs carrying a legacy function call when no tool calls were set", () => {
    const message = new HumanMessage({
      content: "x",
      additional_kwargs: { function_call: { name: "f", arguments: "{}" } },
    });
    expect(convertMessage(message)).toEqual({
      role: "user",
      content: "x",
      additional_kwargs: { function_call: { name: "f", arguments: "{}" } },
    });
  });
});

describe("chain input and output shaping", () => {
  it("converts a message list under input or messages", () => {
    expect(chainInput({ input: [new HumanMessage("a")] })).toEqual([{ role: "user", content: "a" }]);
    expect(chainInput({ messages: [new SystemMessage("s"), new HumanMessage("a")] })).toEqual([
      { role: "system", content: "s" },
      { role: "user", content: "a" },
    ]);
  });

  it("unwraps an input that holds only a string content", () => {
    expect(chainInput({ content: "question" })).toBe("question");
  });

  it("keeps any other input as it is", () => {
    expect(chainInput({ topic: "bears", content: "x" })).toEqual({ topic: "bears", content: "x" });
    expect(chainInput("plain")).toBe("plain");
    expect(chainInput({ input: [new HumanMessage("a"), "text"] })).toEqual({
      input: [JSON.parse(JSON.stringify(new HumanMessage("a"))), "text"],
    });
  });

  it("unwraps a string output and converts an output message list", () => {
    expect(chainOutput({ output: "answer" })).toBe("answer");
    expect(chainOutput({ messages: [new AIMessage("hi")] })).toEqual({
      messages: [{ role: "assistant", content: "hi" }],
    });
    expect(chainOutput({ steps: 2 })).toEqual({ steps: 2 });
  });
});
