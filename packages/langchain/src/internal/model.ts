import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { readField } from "@svc/core";
import { lastGeneration, lastGenerationMessage } from "./generation-output.js";
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

/**
 * The model name the provider reported, if any: the last message's `response_metadata.model_name` (OpenAI), its
 * generation's `generationInfo.model_name` (OpenAI streamed: when a streaming handler is attached, as LangGraph's
 * stream modes do, LangChain does not copy it into the message), `response_metadata.model` (Anthropic),
 * `additional_kwargs.model` (Anthropic streamed, from `message_start`), then the run's `llmOutput`.
 */
export function modelNameAtEnd(result: LLMResult): string | undefined {
  const message = lastGenerationMessage(result);
  const metadata = readField<Loose>(message, "response_metadata");
  const info = readField<Loose>(lastGeneration(result), "generationInfo");
  const kwargs = readField<Loose>(message, "additional_kwargs");
  const llmOutput = readField<Loose>(result, "llmOutput");
  for (const candidate of [
    metadata?.model_name,
    info?.model_name,
    metadata?.model,
    kwargs?.model,
    llmOutput?.model_name,
    llmOutput?.model,
  ]) {
    const name = unrepeated(candidate);
    if (name) return name;
  }
  return undefined;
}

/**
 * The name once: merging the chunks of a stream joins a text field that more than one chunk carries
 * (`gpt-5gpt-5`), so a name that is one part repeated is that part.
 */
function unrepeated(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  for (let size = 1; size <= value.length / 2; size++)
    if (value.length % size === 0 && value.slice(0, size).repeat(value.length / size) === value)
      return value.slice(0, size);
  return value;
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
