// How the token counts of other instrumentation's spans read as usage details, as the server's `extractUsageDetails`
// reads them: the AI SDK's scope `ai` by its rule, every other scope by the generic rule over `gen_ai.usage.*` and
// `llm.token_count.*`. The span processor writes what it reads as the span's usage, so the server stores the same;
// the dev server runs this module from source, so it imports only `attributes.ts`.
//
// Where this reading differs from the server's, on purpose:
// - `cache_write.input_tokens` (the Anthropic SDK's spelling) is cache creation; the server keeps it as an unknown
//   bucket beside an input that still holds it.
// - An input smaller than its cache, or from a scope known to leave the cache out (`EXCLUSIVE_INPUT_SCOPES`), is the
//   fresh input as it is, where the server would subtract the cache and reach 0; in the AI SDK's scope too.
// - The AI SDK: the `ai.usage.*` names of later versions are read after the server's; a span without any count has
//   no usage (the server stores zeros); an embedding's `ai.usage.tokens` is its input as well as its total (the
//   server records input 0).
// - Without a total, the total is the sum of the buckets, as the server's ingestion adds it.

import { isObject, parseJsonText, type SpanAttributeValues } from "./attributes.ts";

/** Scopes whose input token count leaves the cache out (Anthropic's own `input_tokens`, passed on as it is). */
const EXCLUSIVE_INPUT_SCOPES: ReadonlySet<string> = new Set(["@traceloop/instrumentation-anthropic"]);

/** Collected keys (prefix removed) for each bucket of the generic rule; the first present wins, zero included. */
const GENERIC_KEYS = {
  input: ["prompt_tokens", "input_tokens", "prompt"],
  output: ["completion_tokens", "output_tokens", "completion"],
  total: ["total_tokens", "total"],
  cacheRead: [
    "cache_read.input_tokens",
    "cache_read_input_tokens",
    "cache_read_tokens",
    "details.cache_read_tokens",
    "details.cache_read_input_tokens",
    "prompt_details.cache_read",
    "input_cached_tokens",
  ],
  // The last key is ours (see the head of this file).
  cacheCreation: [
    "cache_creation.input_tokens",
    "cache_creation_input_tokens",
    "cache_write_tokens",
    "details.cache_write_tokens",
    "details.cache_creation_input_tokens",
    "prompt_details.cache_write",
    "input_cache_creation",
    "cache_write.input_tokens",
  ],
  reasoning: ["reasoning.output_tokens", "completion_details.reasoning"],
  audio: ["completion_details.audio"],
} as const;

const CONSUMED: ReadonlySet<string> = new Set(Object.values(GENERIC_KEYS).flat());

/**
 * The usage details of a span without an explicit usage attribute: `input` (fresh input, cache left out), `output`
 * (reasoning and audio left out), `total`, `input_cached_tokens`, `input_cache_creation`, `output_reasoning_tokens`,
 * `output_audio_tokens`, and every other count under its own name. Undefined when the span carries no token count.
 */
export function readUsageDetails(scope: string, attributes: SpanAttributeValues): Record<string, number> | undefined {
  const usage = scope === "ai" ? aiSdkUsage(attributes) : genericUsage(scope, attributes);
  if (usage === undefined) return undefined;
  usage.total ??= Object.values(usage).reduce((sum, value) => sum + value, 0);
  return usage;
}

function genericUsage(scope: string, a: SpanAttributeValues): Record<string, number> | undefined {
  const raw: Record<string, number> = {};
  for (const key in a) {
    const name = key.startsWith("gen_ai.usage.")
      ? key.slice("gen_ai.usage.".length)
      : key.startsWith("llm.token_count.")
        ? key.slice("llm.token_count.".length)
        : undefined;
    if (name === undefined || key === "gen_ai.usage.cost") continue;
    const value = numberOf(a[key]);
    if (value !== undefined) raw[name] = value;
  }
  if (Object.keys(raw).length === 0) return undefined;
  const pick = (keys: readonly string[]) => firstCount(raw, keys);
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(raw))
    if (!CONSUMED.has(key)) out[key.startsWith("details.") ? key.slice("details.".length) : key] = value;
  const input = pick(GENERIC_KEYS.input);
  const output = pick(GENERIC_KEYS.output);
  const total = pick(GENERIC_KEYS.total);
  const cacheRead = pick(GENERIC_KEYS.cacheRead);
  const cacheCreation = pick(GENERIC_KEYS.cacheCreation);
  const reasoning = pick(GENERIC_KEYS.reasoning);
  const audio = pick(GENERIC_KEYS.audio);
  const cache = (cacheRead ?? 0) + (cacheCreation ?? 0);
  const exclusive = input !== undefined && cache > 0 && (input < cache || EXCLUSIVE_INPUT_SCOPES.has(scope));
  if (input !== undefined) out.input = exclusive ? input : Math.max(input - cache, 0);
  if (output !== undefined) out.output = Math.max(output - (reasoning ?? 0) - (audio ?? 0), 0);
  // An exclusive total leaves the cache out as its input does: the sum of the buckets below counts it once.
  if (total !== undefined && !exclusive) out.total = total;
  if (cacheRead !== undefined) out.input_cached_tokens = cacheRead;
  if (cacheCreation !== undefined) out.input_cache_creation = cacheCreation;
  if (reasoning !== undefined) out.output_reasoning_tokens = reasoning;
  if (audio !== undefined) out.output_audio_tokens = audio;
  return out;
}

/** The AI SDK's scope `ai` (its legacy integration): counts from `gen_ai.usage.*` and `ai.usage.*`, details from the provider metadata. */
function aiSdkUsage(a: SpanAttributeValues): Record<string, number> | undefined {
  const first = (keys: readonly string[]) => firstCount(a, keys);
  const usage: Record<string, number | undefined> = {
    input: first([
      "gen_ai.usage.prompt_tokens",
      "gen_ai.usage.input_tokens",
      "ai.usage.promptTokens",
      "ai.usage.inputTokens",
    ]),
    output: first([
      "gen_ai.usage.completion_tokens",
      "gen_ai.usage.output_tokens",
      "ai.usage.completionTokens",
      "ai.usage.outputTokens",
    ]),
    total: first(["ai.usage.tokens"]),
    input_cached_tokens: first(["ai.usage.cachedInputTokens", "ai.usage.inputTokenDetails.cacheReadTokens"]),
    input_cache_creation: first(["ai.usage.inputTokenDetails.cacheWriteTokens"]),
    output_reasoning_tokens: first(["ai.usage.reasoningTokens", "ai.usage.outputTokenDetails.reasoningTokens"]),
  };
  if (Object.values(usage).every((value) => value === undefined)) return undefined;
  // An embedding's only count (`ai.usage.tokens`) is input: the server leaves input at 0, unpriced.
  if (usage.input === undefined && usage.output === undefined) usage.input = usage.total;
  addProviderMetadata(usage, parseObject(a["ai.response.providerMetadata"]));
  const cache = sumOf(usage, [
    "input_cached_tokens",
    "input_cache_creation",
    "input_cache_creation_5m",
    "input_cache_creation_1h",
    "input_cache_read",
  ]);
  // An input below its cache cannot include it (the AI SDK 5 passed Anthropic's on as it is): the fresh input as it is.
  if (usage.input !== undefined && usage.input >= cache) usage.input -= cache;
  if (usage.output !== undefined) usage.output = Math.max(usage.output - (usage.output_reasoning_tokens ?? 0), 0);
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) if (value !== undefined) out[key] = value;
  return out;
}

/** Cache and reasoning details of the provider metadata (OpenAI, Anthropic, Bedrock), where `ai.usage.*` has none. */
function addProviderMetadata(usage: Record<string, number | undefined>, metadata: Record<string, unknown>): void {
  const openai = parseObject(metadata.openai);
  usage.input_cached_tokens ??= numberOf(openai.cachedPromptTokens);
  usage.accepted_prediction_tokens ??= numberOf(openai.acceptedPredictionTokens);
  usage.rejected_prediction_tokens ??= numberOf(openai.rejectedPredictionTokens);
  usage.output_reasoning_tokens ??= numberOf(openai.reasoningTokens);
  const anthropic = parseObject(parseObject(metadata.anthropic).usage);
  usage.input_cache_creation ??= numberOf(anthropic.cache_creation_input_tokens);
  usage.input_cached_tokens ??= numberOf(anthropic.cache_read_input_tokens);
  const byDuration = parseObject(anthropic.cache_creation);
  if (Object.keys(byDuration).length > 0) {
    usage.input_cache_creation_5m ??= numberOf(byDuration.ephemeral_5m_input_tokens);
    usage.input_cache_creation_1h ??= numberOf(byDuration.ephemeral_1h_input_tokens);
    // The total of cache creation, less what the two durations name, so that no token is in two buckets.
    usage.input_cache_creation = Math.max(
      (usage.input_cache_creation ?? 0) - sumOf(usage, ["input_cache_creation_5m", "input_cache_creation_1h"]),
      0,
    );
  }
  const bedrock = parseObject(parseObject(metadata.bedrock).usage);
  usage.input_cache_read ??= numberOf(bedrock.cacheReadInputTokens);
  usage.input_cache_write ??= numberOf(bedrock.cacheWriteInputTokens);
  usage.input_cache_creation ??= numberOf(bedrock.cacheCreationInputTokens);
}

function sumOf(usage: Record<string, number | undefined>, keys: readonly string[]): number {
  return keys.reduce((sum, key) => sum + (usage[key] ?? 0), 0);
}

function parseObject(value: unknown): Record<string, unknown> {
  const parsed = parseJsonText(value);
  return isObject(parsed) ? parsed : {};
}

/** The count under the first of `keys` that holds one. */
function firstCount(values: SpanAttributeValues, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = numberOf(values[key]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A finite number, or numeric text (counts can arrive as OTLP int64 text); anything else is no count. */
function numberOf(value: unknown): number | undefined {
  const number =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : undefined;
}
