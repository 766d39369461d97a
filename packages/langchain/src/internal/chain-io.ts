import { convertMessages, isMessageList } from "./messages.js";

/**
 * Shapes a chain's inputs for the observation: message lists under `input` or `messages` become converted
 * messages, an object holding only a string `content` becomes that string, anything else is kept.
 */
export function chainInput(inputs: unknown): unknown {
  if (!isObject(inputs)) return inputs;
  if (isMessageList(inputs.input)) return convertMessages(inputs.input);
  if (isMessageList(inputs.messages)) return convertMessages(inputs.messages);
  const keys = Object.keys(inputs);
  if (keys.length === 1 && keys[0] === "content" && typeof inputs.content === "string") return inputs.content;
  return inputs;
}

/**
 * Shapes a chain's outputs for the observation: a string `output` becomes that string, a message list under
 * `messages` becomes `{ messages: converted }`, anything else is kept.
 */
export function chainOutput(outputs: unknown): unknown {
  if (!isObject(outputs)) return outputs;
  if (typeof outputs.output === "string") return outputs.output;
  if (isMessageList(outputs.messages)) return { messages: convertMessages(outputs.messages) };
  return outputs;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
