import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { lastGenerationMessage } from "./generation-output.js";
import { convertMessages, type LlmMessage } from "./messages.js";

/** Model parameters as recorded on a generation: only string and number values. */
export type ModelParameters = Record<string, string | number>;

const PARAMETER_KEYS = [
  "temperature",
  "max_tokens",
  "top_p",
  "frequency_penalty",
  "presence_penalty",
  "request_timeout",
] as const;

type Loose = Record<string, unknown>;

/** The `invocation_params` LangChain passes in a model run's extra params, if any. */
export function invocationParams(extraParams: Loose | undefined): Loose | undefined {
  const params = extraParams?.invocation_params;
  return typeof params === "object" && params !== null ? (params as Loose) : undefined;
}

/** The model name known when a model run starts: `invocation_params.model`, else metadata `ls_model_name`. */
export function modelNameAtStart(extraParams: Loose | undefined, metadata: Loose | undefined): string | undefined {
  const fromParams = invocationParams(extraParams)?.model;
  if (typeof fromParams === "string" && fromParams !== "") return fromParams;
  const fromMetadata = metadata?.ls_model_name;
  return typeof fromMetadata === "string" && fromMetadata !== "" ? fromMetadata : undefined;
}

/** The model name the provider reported (`response_metadata.model_name` of the last message), if any. */
export function modelNameAtEnd(result: LLMResult): string | undefined {
  const name = (lastGenerationMessage(result)?.response_metadata as Record<string, unknown> | undefined)?.model_name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** The sampling parameters of a model run that are set (temperature, max_tokens, top_p, ...). */
export function modelParameters(extraParams: Loose | undefined): ModelParameters | undefined {
  const params = invocationParams(extraParams);
  if (!params) return undefined;
  const picked: ModelParameters = {};
  for (const key of PARAMETER_KEYS) {
    const value = params[key];
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) picked[key] = value;
  }
  return Object.keys(picked).length > 0 ? picked : undefined;
}

/** Input of a chat model run: its messages, with `tools` and `tool_choice` when the model was given tools. */
export function chatModelInput(
  messageLists: readonly (readonly BaseMessage[])[],
  extraParams: Loose | undefined,
): LlmMessage[] | { messages: LlmMessage[]; tools?: unknown; tool_choice?: unknown } {
  const messages = convertMessages(messageLists.flat());
  const params = invocationParams(extraParams);
  if (params?.tools === undefined && params?.tool_choice === undefined) return messages;
  const withTools: { messages: LlmMessage[]; tools?: unknown; tool_choice?: unknown } = { messages };
  if (params.tools !== undefined) withTools.tools = params.tools;
  if (params.tool_choice !== undefined) withTools.tool_choice = params.tool_choice;
  return withTools;
}
