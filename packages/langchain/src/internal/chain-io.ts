import { readField } from "@svc/core";
import { convertMessages, isMessageList } from "./messages.js";

/**
 * Shapes a chain's inputs for the observation: message lists under `input` or `messages` become converted
 * messages, an object holding only a string `content` becomes that string, anything else is kept.
 */
export function chainInput(inputs: unknown): unknown {
  if (!isObject(inputs)) return inputs;
  const input = readField(inputs, "input");
  if (isMessageList(input)) return convertMessages(input);
  const messages = readField(inputs, "messages");
  if (isMessageList(messages)) return convertMessages(messages);
  const content = readField(inputs, "content");
  if (typeof content === "string" && keysOf(inputs).join() === "content") return content;
  return inputs;
}

/**
 * Shapes a chain's outputs for the observation: a string `output` becomes that string, a message list under
 * `messages` becomes `{ messages: converted }`, anything else is kept.
 */
export function chainOutput(outputs: unknown): unknown {
  if (!isObject(outputs)) return outputs;
  const output = readField(outputs, "output");
  if (typeof output === "string") return output;
  const messages = readField(outputs, "messages");
  if (isMessageList(messages)) return { messages: convertMessages(messages) };
  return outputs;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function keysOf(value: object): string[] {
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
}
