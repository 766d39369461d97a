// How the attributes of spans from other instrumentation (OpenTelemetry GenAI conventions, the AI SDK's `ai.*`
// spans, OpenInference) read as an observation, the way the server reads them for OTLP ingestion. Shared by the
// test kit of @svc/otel and the dev server, which runs from source under Node's type stripping: this module
// therefore imports only the other readers, by their `.ts` paths.

import { readGenAiInputOutput } from "./genai-io.ts";
import { readUsageDetails } from "./genai-usage.ts";

/** Attribute values of one span, as read from OTLP (strings, numbers, booleans, arrays). */
export type SpanAttributeValues = Readonly<Record<string, unknown>>;

/** What a span that carries no `svc.*` observation attributes says about itself. */
export interface GenAiFields {
  /** The observation type, lower case (`generation`, `embedding`, `agent`, `tool`, `span`...). */
  type: string;
  /** The model: the one that answered, else the one asked for. */
  model: string | undefined;
  /** Token counts by kind (`input`, `output`, `total`...), or undefined when the span carries none. */
  usage: Record<string, number> | undefined;
  /** The input messages or prompt, as sent (JSON text). */
  input: unknown;
  /** The output messages or text, as sent. */
  output: unknown;
}

/** The observation types, in lower case, as `svc.observation.type` names them. */
export const OBSERVATION_TYPES: ReadonlySet<string> = new Set([
  "span",
  "generation",
  "event",
  "embedding",
  "agent",
  "tool",
  "chain",
  "retriever",
  "evaluator",
  "guardrail",
]);

/** `openinference.span.kind` values the server maps, and the observation type of each (others fall through). */
const OPENINFERENCE_KINDS: Readonly<Record<string, string>> = {
  CHAIN: "chain",
  RETRIEVER: "retriever",
  LLM: "generation",
  EMBEDDING: "embedding",
  AGENT: "agent",
  TOOL: "tool",
  GUARDRAIL: "guardrail",
  EVALUATOR: "evaluator",
};

/** `gen_ai.operation.name` values and the observation type each stands for. */
const OPERATION_TYPES: Readonly<Record<string, string>> = {
  chat: "generation",
  text_completion: "generation",
  completion: "generation",
  generate_content: "generation",
  embeddings: "embedding",
  invoke_agent: "agent",
  create_agent: "agent",
  execute_tool: "tool",
};

/** The AI SDK's model call operations (`ai.operationId`, or the start of `operation.name`) and their types. */
const AI_SDK_MODEL_CALLS: readonly (readonly [string, string])[] = [
  ["ai.generateText.doGenerate", "generation"],
  ["ai.streamText.doStream", "generation"],
  ["ai.generateObject.doGenerate", "generation"],
  ["ai.streamObject.doStream", "generation"],
  ["ai.embedMany.doEmbed", "embedding"],
  ["ai.embed.doEmbed", "embedding"],
];

/**
 * Where the model is read from, first present wins: the model that answered before the one asked for. The server
 * does not read `embedding.model_name` (OpenInference's embedding spans): ours, last.
 */
const MODEL_KEYS = [
  "gen_ai.response.model",
  "ai.model.id",
  "gen_ai.request.model",
  "llm.response.model",
  "llm.model_name",
  "model",
  "embedding.model_name",
] as const;

/** Keys whose presence makes a span without another type a generation (the server's last rule). */
const MODEL_FALLBACK_KEYS = ["gen_ai.request.model", "gen_ai.response.model", "llm.model_name", "model"] as const;

/**
 * Reads the type, model, usage, input and output of a span from the conventions of other instrumentation, in the
 * server's order. `scope` is the span's instrumentation scope name (the AI SDK's `ai` is read by its own rules).
 */
export function readGenAiFields(attributes: SpanAttributeValues, scope = ""): GenAiFields {
  const { input, output } = readGenAiInputOutput(scope, attributes);
  return {
    type: readGenAiType(attributes),
    model: firstText(attributes, MODEL_KEYS),
    usage: readUsageDetails(scope, attributes),
    input,
    output,
  };
}

/** The observation type the server's type mapper gives a span without `svc.observation.type` (`name` is not read). */
export function readGenAiType(a: SpanAttributeValues): string {
  const kind = text(a["openinference.span.kind"])?.toUpperCase();
  if (kind && Object.hasOwn(OPENINFERENCE_KINDS, kind)) return OPENINFERENCE_KINDS[kind] as string;
  const operation = text(a["gen_ai.operation.name"])?.toLowerCase();
  if (operation && Object.hasOwn(OPERATION_TYPES, operation)) return OPERATION_TYPES[operation] as string;
  const hasModel = firstText(a, ["ai.model.id", "gen_ai.request.model", "gen_ai.response.model"]) !== undefined;
  for (const [operationId, type] of AI_SDK_MODEL_CALLS) if (hasModel && isAiSdkOperation(a, operationId)) return type;
  if (isAiSdkOperation(a, "ai.toolCall")) return "tool";
  if (present(a["gen_ai.tool.name"]) || present(a["gen_ai.tool.call.id"])) return "tool";
  if (firstText(a, MODEL_FALLBACK_KEYS) !== undefined) return "generation";
  return "span";
}

/** The AI SDK names its operation in `ai.operationId`, and in `operation.name` followed by the function id. */
function isAiSdkOperation(a: SpanAttributeValues, operationId: string): boolean {
  return text(a["ai.operationId"]) === operationId || text(a["operation.name"])?.startsWith(operationId) === true;
}

/** One observation of a trace, as {@link usageRepeaters} needs it. */
export interface UsageNode {
  /** The span id. */
  id: string;
  /** The parent's span id; null or undefined for a root. */
  parentId: string | null | undefined;
  /** The observation type, in lower or upper case. */
  type: string;
  /** Whether the observation carries usage. */
  hasUsage: boolean;
}

/**
 * The observations of one trace whose usage repeats that of the model calls below them: any observation with usage
 * (an agent, a step, or a generation that wraps another, as one instrumentation's span wraps a client's own) that has
 * a generation or an embedding with usage below it. Their usage is not counted, so that a trace's tokens are summed
 * once: the model call nearest to the wire is the one counted (the AI SDK puts a call's tokens on `invoke_agent` and
 * on its `chat` span; Traceloop's Anthropic span wraps the Anthropic SDK's own, which has the cache counts).
 */
export function usageRepeaters(nodes: readonly UsageNode[]): Set<string> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const withUsageBelow = new Set<string>();
  for (const node of nodes) {
    if (!node.hasUsage || !isModelCall(node.type)) continue;
    // Bounded by the number of nodes: a cycle of parent ids cannot loop.
    let parent = node.parentId ? byId.get(node.parentId) : undefined;
    for (let steps = 0; parent !== undefined && steps < nodes.length; steps++) {
      withUsageBelow.add(parent.id);
      parent = parent.parentId ? byId.get(parent.parentId) : undefined;
    }
  }
  const out = new Set<string>();
  for (const node of nodes) if (node.hasUsage && withUsageBelow.has(node.id)) out.add(node.id);
  return out;
}

/**
 * Providers whose client SDK traces its own calls: the scope of that tracing, the scopes of other instrumentations
 * of the same client, and the setting that turns the SDK's tracing off. When both record a call, the SDK's own span
 * is the one counted, nested or not (a streamed call can leave the other span in a trace of its own).
 */
export const PROVIDER_OWN_TRACING: readonly { provider: string; own: string; other: RegExp; off: string }[] = [
  {
    provider: "Anthropic",
    own: "com.anthropic.sdk.typescript",
    other: /anthropic/i,
    off: "ANTHROPIC_OPEN_TELEMETRY=false",
  },
];

/**
 * For a span of `scope`: the provider whose SDK's own tracing it is (`own: true`), or whose client it instruments
 * beside that tracing (`own: false`); undefined for any other scope.
 */
export function providerOwnTracing(scope: string): { provider: string; own: boolean } | undefined {
  for (const { provider, own, other } of PROVIDER_OWN_TRACING) {
    if (scope.startsWith(own)) return { provider, own: true };
    if (other.test(scope)) return { provider, own: false };
  }
  return undefined;
}

/**
 * The observations, across traces, whose model call a provider SDK's own tracing also records: those with usage from
 * another instrumentation of that client, when spans of the SDK's own tracing are among `nodes` of the same `source`
 * (one process: its resource).
 */
export function ownTracingRepeaters(
  nodes: readonly { id: string; scope: string; hasUsage: boolean; source?: string }[],
): Set<string> {
  const seen = new Set<string>();
  for (const node of nodes) {
    const match = providerOwnTracing(node.scope);
    if (match?.own) seen.add(`${node.source ?? ""}\u0000${match.provider}`);
  }
  const out = new Set<string>();
  if (seen.size === 0) return out;
  for (const node of nodes) {
    const match = node.hasUsage ? providerOwnTracing(node.scope) : undefined;
    if (match && !match.own && seen.has(`${node.source ?? ""}\u0000${match.provider}`)) out.add(node.id);
  }
  return out;
}

function isModelCall(type: string): boolean {
  const lower = type.toLowerCase();
  return lower === "generation" || lower === "embedding";
}

function firstText(a: SpanAttributeValues, keys: readonly string[]): string | undefined {
  for (const key of keys) if (present(a[key])) return typeof a[key] === "string" ? a[key] : JSON.stringify(a[key]);
  return undefined;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "" && value !== false && value !== 0;
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  return typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
}
