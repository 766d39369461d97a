// What a model run records: its input, the model and its parameters, the output and the token usage.
import { BaseMessage } from "@langchain/core/messages";
import type { Generation, LLMResult } from "@langchain/core/outputs";
import { isPlainObject, readField } from "@svc/core";
import { convertMessage } from "./messages.js";
import { stringField } from "./run-info.js";

const PARAMETER_KEYS = [
  "temperature",
  "max_tokens",
  "top_p",
  "frequency_penalty",
  "presence_penalty",
  "request_timeout",
] as const;

type Loose = Record<string, unknown>;

function invocationParams(extraParams: Loose | undefined): Loose | undefined {
  const params = extraParams?.invocation_params;
  return typeof params === "object" && params !== null ? (params as Loose) : undefined;
}

/** The model name known when a model run starts: `invocation_params.model`, else metadata `ls_model_name`. */
export function modelNameAtStart(extraParams: Loose | undefined, metadata: Loose | undefined): string | undefined {
  return stringField(invocationParams(extraParams), "model") ?? stringField(metadata, "ls_model_name");
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

/** The sampling parameters of a model run that are set (temperature, max_tokens, top_p, ...): strings and numbers. */
export function modelParameters(extraParams: Loose | undefined): Record<string, string | number> | undefined {
  const params = invocationParams(extraParams);
  if (!params) return undefined;
  const picked: Record<string, string | number> = {};
  for (const key of PARAMETER_KEYS) {
    const value = params[key];
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) picked[key] = value;
  }
  return Object.keys(picked).length > 0 ? picked : undefined;
}

/** Input of a chat model run: its messages, with `tools` and `tool_choice` when the model was given tools. */
export function chatModelInput(messageLists: readonly (readonly BaseMessage[])[], extraParams: Loose | undefined) {
  const messages = messageLists.flat().map(convertMessage);
  const params = invocationParams(extraParams);
  if (params?.tools === undefined && params?.tool_choice === undefined) return messages;
  return { messages, tools: params.tools, tool_choice: params.tool_choice };
}

/** The last generation of the last prompt of a model run, if any. */
function lastGeneration(result: LLMResult): Generation | undefined {
  const generations = readField<unknown>(result, "generations");
  const perPrompt: unknown = Array.isArray(generations) ? generations.at(-1) : undefined;
  return Array.isArray(perPrompt) ? (perPrompt.at(-1) as Generation | undefined) : undefined;
}

/** The message of the last generation (chat models), if any. */
function lastGenerationMessage(result: LLMResult): BaseMessage | undefined {
  const message = readField(lastGeneration(result), "message");
  return BaseMessage.isInstance(message) ? message : undefined;
}

/** The output of a model run: the last generation's converted message, else its text. */
export function generationOutput(result: LLMResult) {
  const message = lastGenerationMessage(result);
  if (message) return convertMessage(message);
  return readField<string>(lastGeneration(result), "text");
}

/**
 * The token usage of a model run in svc's keys: the last generation's `usage_metadata`, else
 * `llmOutput.tokenUsage`. Token details become `input_<k>` / `output_<k>` and are taken out of the `input` / `output`
 * counts (never below 0). Undefined when no count is reported.
 */
export function extractUsageDetails(result: LLMResult): Record<string, number> | undefined {
  const metadata = readField(lastGenerationMessage(result), "usage_metadata");
  const tokenUsage = readField(readField(result, "llmOutput"), "tokenUsage");
  // A plain object, as LangChain reports usage: a byte array would have a key per byte.
  const source = isPlainObject(metadata) ? metadata : isPlainObject(tokenUsage) ? tokenUsage : undefined;
  if (!source) return undefined;
  const usage: Record<string, number> = {};
  const counts: [string, unknown][] = [
    ["input", source.input_tokens ?? source.promptTokens],
    ["output", source.output_tokens ?? source.completionTokens],
    ["total", source.total_tokens ?? source.totalTokens],
  ];
  for (const [key, value] of counts) if (isCount(value)) usage[key] = value;
  for (const side of ["input", "output"] as const) {
    const details = source[`${side}_token_details`];
    if (!isPlainObject(details)) continue;
    for (const [key, value] of Object.entries(details)) {
      if (!isCount(value)) continue;
      usage[`${side}_${key}`] = value;
      const base = usage[side];
      if (base !== undefined) usage[side] = Math.max(0, base - value);
    }
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
