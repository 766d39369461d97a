import type { LLMResult } from "@langchain/core/outputs";
import { isPlainObject, readField } from "@svc/core";
import { lastGenerationMessage } from "./generation-output.js";

/** Usage of one generation in svc's keys: `input`, `output`, `total` and `input_<k>` / `output_<k>` details. */
export type UsageDetails = Record<string, number>;

type Counts = Record<string, unknown>;

/**
 * Reads the token usage of a model run: the last generation's `usage_metadata` when the model reports it,
 * else `llmOutput.tokenUsage`. Token details become `input_<k>` / `output_<k>` and are taken out of the
 * `input` / `output` counts (never below 0). Returns undefined when no count is reported.
 */
export function extractUsageDetails(result: LLMResult): UsageDetails | undefined {
  const metadata = asRecord(readField(lastGenerationMessage(result), "usage_metadata"));
  const tokenUsage = asRecord(readField(readField(result, "llmOutput"), "tokenUsage"));
  const source: Counts | undefined = metadata ?? tokenUsage;
  if (!source) return undefined;

  const usage: UsageDetails = {};
  setCount(usage, "input", source.input_tokens ?? source.promptTokens);
  setCount(usage, "output", source.output_tokens ?? source.completionTokens);
  setCount(usage, "total", source.total_tokens ?? source.totalTokens);
  addDetails(usage, "input", asRecord(source.input_token_details));
  addDetails(usage, "output", asRecord(source.output_token_details));
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function addDetails(usage: UsageDetails, side: "input" | "output", details: Counts | undefined): void {
  if (!details) return;
  for (const [key, value] of Object.entries(details)) {
    if (!isCount(value)) continue;
    usage[`${side}_${key}`] = value;
    const base = usage[side];
    if (base !== undefined) usage[side] = Math.max(0, base - value);
  }
}

function setCount(usage: UsageDetails, key: string, value: unknown): void {
  if (isCount(value)) usage[key] = value;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** `value` when it is a plain object (as LangChain reports usage), else undefined: a byte array has a key per byte. */
function asRecord(value: unknown): Counts | undefined {
  return isPlainObject(value) ? value : undefined;
}
