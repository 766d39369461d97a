import type { BaseMessage } from "@langchain/core/messages";
import type { Generation, LLMResult } from "@langchain/core/outputs";
import { readField } from "@svc/core";
import { convertMessage, isMessage, type LlmMessage } from "./messages.js";

/** The last generation of the last prompt of a model run, if any. */
export function lastGeneration(result: LLMResult): Generation | undefined {
  const generations = readField<unknown>(result, "generations");
  const perPrompt: unknown = Array.isArray(generations) ? generations.at(-1) : undefined;
  return Array.isArray(perPrompt) ? (perPrompt.at(-1) as Generation | undefined) : undefined;
}

/** The message of the last generation (chat models), if any. */
export function lastGenerationMessage(result: LLMResult): BaseMessage | undefined {
  const message = readField(lastGeneration(result), "message");
  return isMessage(message) ? message : undefined;
}

/** The output of a model run: the last generation's converted message, else its text. */
export function generationOutput(result: LLMResult): LlmMessage | string | undefined {
  const message = lastGenerationMessage(result);
  if (message) return convertMessage(message);
  return readField<string>(lastGeneration(result), "text");
}
