import type { BaseMessage } from "@langchain/core/messages";
import type { Generation, LLMResult } from "@langchain/core/outputs";
import { convertMessage, isMessage, type LlmMessage } from "./messages.js";

/** The last generation of the last prompt of a model run, if any. */
export function lastGeneration(result: LLMResult): Generation | undefined {
  const perPrompt = Array.isArray(result.generations) ? result.generations.at(-1) : undefined;
  return Array.isArray(perPrompt) ? perPrompt.at(-1) : undefined;
}

/** The message of the last generation (chat models), if any. */
export function lastGenerationMessage(result: LLMResult): BaseMessage | undefined {
  const message = (lastGeneration(result) as { message?: unknown } | undefined)?.message;
  return isMessage(message) ? message : undefined;
}

/** The output of a model run: the last generation's converted message, else its text. */
export function generationOutput(result: LLMResult): LlmMessage | string | undefined {
  const message = lastGenerationMessage(result);
  if (message) return convertMessage(message);
  return lastGeneration(result)?.text;
}
