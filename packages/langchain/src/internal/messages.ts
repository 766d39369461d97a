import { BaseMessage } from "@langchain/core/messages";

/** A LangChain message as recorded on an observation: a role, the content and, for tool use, the extra fields. */
export interface LlmMessage {
  role?: string;
  content: unknown;
  tool_calls?: unknown;
  /** The id of the tool call a tool message answers. */
  tool_call_id?: string;
  additional_kwargs?: Record<string, unknown>;
}

/** True when `value` is a LangChain message, from any copy of `@langchain/core`. */
export function isMessage(value: unknown): value is BaseMessage {
  return BaseMessage.isInstance(value);
}

/** True when `value` is an array whose every element is a LangChain message. */
export function isMessageList(value: unknown): value is BaseMessage[] {
  return Array.isArray(value) && value.every(isMessage);
}

/** Converts one LangChain message into the role/content shape the svc UI renders as a chat turn. */
export function convertMessage(message: BaseMessage): LlmMessage {
  const kwargs = message.additional_kwargs ?? {};
  const content = message.content;
  let converted: LlmMessage;
  switch (message.type) {
    case "human":
      converted = { role: "user", content };
      break;
    case "generic":
      converted = { role: "human", content };
      break;
    case "system":
      converted = { role: "system", content };
      break;
    case "ai":
      converted = { role: "assistant", content };
      setToolCalls(converted, message, kwargs);
      break;
    case "function":
      return { role: message.name, content, additional_kwargs: kwargs };
    case "tool": {
      const id = (message as { tool_call_id?: unknown }).tool_call_id;
      return typeof id === "string"
        ? { role: message.name, content, tool_call_id: id, additional_kwargs: kwargs }
        : { role: message.name, content, additional_kwargs: kwargs };
    }
    default:
      converted = message.name ? { role: message.name, content } : { content };
  }
  if (converted.tool_calls === undefined && ("function_call" in kwargs || "tool_calls" in kwargs)) {
    converted.additional_kwargs = kwargs;
  }
  return converted;
}

function setToolCalls(converted: LlmMessage, message: BaseMessage, kwargs: Record<string, unknown>): void {
  const toolCalls = (message as { tool_calls?: unknown }).tool_calls;
  if (Array.isArray(toolCalls) && toolCalls.length > 0) converted.tool_calls = toolCalls;
  if (kwargs.tool_calls !== undefined) converted.tool_calls = kwargs.tool_calls;
}

/** Converts every message of a list. */
export function convertMessages(messages: readonly BaseMessage[]): LlmMessage[] {
  return messages.map(convertMessage);
}
