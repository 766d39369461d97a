// How LangChain messages and chain values are recorded: as the role/content turns the svc UI renders.
import { BaseMessage } from "@langchain/core/messages";
import { isObject, readField } from "@svc/core";

/** A LangChain message as recorded on an observation: a role, the content and, for tool use, the extra fields. */
export interface LlmMessage {
  role?: string;
  content: unknown;
  tool_calls?: unknown;
  /** The id of the tool call a tool message answers. */
  tool_call_id?: string;
  additional_kwargs?: Record<string, unknown>;
}

/** True for a list of LangChain messages, from any copy of `@langchain/core` (`isInstance` reads a marker). */
function isMessageList(value: unknown): value is BaseMessage[] {
  return Array.isArray(value) && value.every((item) => BaseMessage.isInstance(item));
}

/** The role each LangChain message type is recorded with; a message of another type is recorded with its name. */
const ROLES = new Map([
  ["human", "user"],
  ["generic", "human"],
  ["system", "system"],
  ["ai", "assistant"],
]);

/** Converts one LangChain message into the role/content shape of a chat turn. */
export function convertMessage(message: BaseMessage): LlmMessage {
  const kwargs = message.additional_kwargs ?? {};
  const content = message.content;
  if (message.type === "function" || message.type === "tool") {
    const id = (message as { tool_call_id?: unknown }).tool_call_id;
    return message.type === "tool" && typeof id === "string"
      ? { role: message.name, content, tool_call_id: id, additional_kwargs: kwargs }
      : { role: message.name, content, additional_kwargs: kwargs };
  }
  const role = ROLES.get(message.type) ?? message.name;
  const converted: LlmMessage = role ? { role, content } : { content };
  if (message.type === "ai") {
    const toolCalls = (message as { tool_calls?: unknown }).tool_calls;
    if (Array.isArray(toolCalls) && toolCalls.length > 0) converted.tool_calls = toolCalls;
    if (kwargs.tool_calls !== undefined) converted.tool_calls = kwargs.tool_calls;
  }
  if (converted.tool_calls === undefined && ("function_call" in kwargs || "tool_calls" in kwargs))
    converted.additional_kwargs = kwargs;
  return converted;
}

/**
 * A chain's inputs as recorded: message lists under `input` or `messages` converted, an object holding only a string
 * `content` as that string, anything else as it is.
 */
export function chainInput(inputs: unknown): unknown {
  if (!isObject(inputs)) return inputs;
  for (const key of ["input", "messages"]) {
    const messages = readField(inputs, key);
    if (isMessageList(messages)) return messages.map(convertMessage);
  }
  const content = readField(inputs, "content");
  if (typeof content === "string" && keysOf(inputs).join() === "content") return content;
  return inputs;
}

/** A chain's outputs as recorded: a string `output` as that string, messages as `{ messages }` converted, else as is. */
export function chainOutput(outputs: unknown): unknown {
  if (!isObject(outputs)) return outputs;
  const output = readField(outputs, "output");
  if (typeof output === "string") return output;
  const messages = readField(outputs, "messages");
  if (isMessageList(messages)) return { messages: messages.map(convertMessage) };
  return outputs;
}

function keysOf(value: object): string[] {
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
}
