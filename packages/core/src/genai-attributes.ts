// How spans of other instrumentation (GenAI conventions, the AI SDK, OpenInference, Traceloop) read as an observation,
// as the server reads them: type, model, input, output, and which usage repeats another's (counts: `genai-usage.ts`).
// The dev server runs it from source: it imports only the other readers, by `.ts` paths.

import { type SpanAttributeValues, attributeText as text } from "./attributes.ts";
import { readUsageDetails } from "./genai-usage.ts";

/** What a span that carries no `svc.*` observation attributes says about itself (see {@link readGenAiFields}). */
export interface GenAiFields {
  /** Lower case (`generation`, `embedding`, `agent`, `tool`, `span`...). */
  type: string;
  model: string | undefined;
  usage: Record<string, number> | undefined;
  input: unknown;
  output: unknown;
}

/** The observation types, in lower case, as `svc.observation.type` names them. */
export const OBSERVATION_TYPES: ReadonlySet<string> = new Set(
  "span generation event embedding agent tool chain retriever evaluator guardrail".split(" "),
);

/** `openinference.span.kind` values the server maps, and the observation type of each (others fall through). */
const OPENINFERENCE_KINDS: Readonly<Record<string, string>> = {
  LLM: "generation",
  ...Object.fromEntries(
    ["CHAIN", "RETRIEVER", "EMBEDDING", "AGENT", "TOOL", "GUARDRAIL", "EVALUATOR"].map((k) => [k, k.toLowerCase()]),
  ),
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

/** Where the model is read from, first present wins; the last, OpenInference's embedding model, is ours alone. */
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

/** Type, model, usage, input and output by other instrumentation's conventions; `scope` `ai` has rules of its own. */
export function readGenAiFields(attributes: SpanAttributeValues, scope = ""): GenAiFields {
  return {
    type: readGenAiType(attributes),
    model: firstText(attributes, MODEL_KEYS),
    usage: readUsageDetails(scope, attributes),
    ...readGenAiInputOutput(scope, attributes),
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
  if (firstText(a, ["gen_ai.tool.name", "gen_ai.tool.call.id"]) !== undefined) return "tool";
  if (firstText(a, MODEL_FALLBACK_KEYS) !== undefined) return "generation";
  return "span";
}

/** The AI SDK names its operation in `ai.operationId`, and in `operation.name` followed by the function id. */
function isAiSdkOperation(a: SpanAttributeValues, operationId: string): boolean {
  return text(a["ai.operationId"]) === operationId || text(a["operation.name"])?.startsWith(operationId) === true;
}

/** The first of `keys` present (false and 0 are not), as text. */
function firstText(a: SpanAttributeValues, keys: readonly string[]): string | undefined {
  for (const key of keys) if (present(a[key]) && a[key] !== false && a[key] !== 0) return text(a[key]);
  return undefined;
}

// Input and output, in the order the server's `extractInputAndOutput` tries them for the conventions JavaScript
// libraries emit. Span events are not read: no JavaScript library of these puts its messages there.

/** The input and output a span's attributes give; both undefined when none does. */
type InputOutput = Pick<GenAiFields, "input" | "output">;

/** Reads the input and output of a span that has no `svc.observation.input` or `.output`. */
function readGenAiInputOutput(scope: string, a: SpanAttributeValues): InputOutput {
  if (scope === "ai") {
    const genAi = genAiMessages(a);
    return { input: aiSdkInput(a) ?? genAi?.input, output: aiSdkOutput(a) ?? genAi?.output };
  }
  for (const [inputKey, outputKey] of [
    ["traceloop.entity.input", "traceloop.entity.output"],
    ["input.value", "output.value"],
  ] as const)
    if (present(a[inputKey]) || present(a[outputKey])) return { input: a[inputKey], output: a[outputKey] };
  for (const [inputKey, outputKey] of [
    ["gen_ai.prompt", "gen_ai.completion"],
    ["llm.input_messages", "llm.output_messages"],
  ]) {
    const io = { input: nested(a, inputKey as string), output: nested(a, outputKey as string) };
    if (io.input !== undefined || io.output !== undefined) return io;
  }
  return genAiMessages(a) ?? { input: undefined, output: undefined };
}

function aiSdkInput(a: SpanAttributeValues): unknown {
  for (const key of ["ai.prompt.messages", "ai.prompt", "ai.toolCall.args"]) if (key in a) return a[key];
  return undefined;
}

function aiSdkOutput(a: SpanAttributeValues): unknown {
  if ("ai.response.text" in a && "ai.response.toolCalls" in a)
    return JSON.stringify({
      role: "assistant",
      content: a["ai.response.text"],
      tool_calls: a["ai.response.toolCalls"],
    });
  if (present(a["ai.response.text"])) return a["ai.response.text"];
  for (const key of [
    "ai.result.text",
    "ai.toolCall.result",
    "ai.response.object",
    "ai.result.object",
    "ai.response.toolCalls",
    "ai.result.toolCalls",
  ])
    if (key in a) return a[key];
  return undefined;
}

/** The GenAI conventions: messages (system instructions first, as a system message), else a tool call's arguments and result. */
function genAiMessages(a: SpanAttributeValues): InputOutput | undefined {
  const input = a["gen_ai.input.messages"];
  const output = a["gen_ai.output.messages"];
  if (present(input) || present(output))
    return { input: present(input) ? withSystemInstructions(input, a["gen_ai.system_instructions"]) : input, output };
  const args = a["gen_ai.tool.call.arguments"];
  const result = a["gen_ai.tool.call.result"];
  if (present(args) || present(result)) return { input: args, output: result };
  return undefined;
}

/** Puts the system instructions first as a `system` message, unless the messages have one; as sent otherwise. */
function withSystemInstructions(input: unknown, instructions: unknown): unknown {
  if (!present(instructions)) return input;
  const messages = typeof input === "string" ? parseJson(input) : input;
  if (!Array.isArray(messages) || messages.some((m) => (m as { role?: unknown })?.role === "system")) return input;
  const parsed = typeof instructions === "string" ? (parseJson(instructions) ?? instructions) : instructions;
  const content = Array.isArray(parsed)
    ? parsed.map((part) => String((part as { content?: unknown })?.content ?? part)).join("\n")
    : String(parsed);
  const merged = [{ role: "system", content }, ...messages];
  return typeof input === "string" ? JSON.stringify(merged) : merged;
}

const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
/** Most array slots a flattened attribute may ask for (`gen_ai.prompt.99999999.content` allocates nothing). */
const MAX_INDEX = 10_000;

/** `prefix` itself when sent whole, else the attributes under `prefix.` rebuilt as nested arrays and objects. */
function nested(a: SpanAttributeValues, prefix: string): unknown {
  if (present(a[prefix])) return a[prefix];
  let root: Record<string, unknown> | unknown[] | undefined;
  for (const key in a) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const path = key.slice(prefix.length + 1).split(".");
    if (path.some((part) => UNSAFE_KEYS.has(part) || (isIndex(part) && Number(part) > MAX_INDEX))) continue;
    root ??= isIndex(path[0] as string) ? [] : {};
    let node: Record<string, unknown> = root as Record<string, unknown>;
    for (let i = 0; i < path.length - 1; i++) {
      const part = path[i] as string;
      if (typeof node[part] !== "object" || node[part] === null) node[part] = isIndex(path[i + 1] as string) ? [] : {};
      node = node[part] as Record<string, unknown>;
    }
    node[path[path.length - 1] as string] = a[key];
  }
  return root;
}

function isIndex(part: string): boolean {
  return /^\d+$/.test(part);
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

// Which observations' usage repeats another's, so that each model call is counted once.

/**
 * The observations of one trace (by span id; the parent's null or undefined for a root; the type in either case)
 * whose usage repeats that of a generation or embedding with usage below them, so a trace's tokens count once, on the
 * call nearest to the wire (the AI SDK puts them on `invoke_agent` and `chat`).
 */
export function usageRepeaters(
  nodes: readonly { id: string; parentId: string | null | undefined; type: string; hasUsage: boolean }[],
): Set<string> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const withUsageBelow = new Set<string>();
  for (const node of nodes) {
    if (!node.hasUsage || !/^(generation|embedding)$/i.test(node.type)) continue;
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
 * Providers whose client SDK traces its own calls: its scope, the scopes of other instrumentations of that client, and
 * the setting that turns it off. When both record a call, the SDK's own span is counted, nested or not.
 */
export const PROVIDER_OWN_TRACING: readonly { provider: string; own: string; other: RegExp; off: string }[] = [
  {
    provider: "Anthropic",
    own: "com.anthropic.sdk.typescript",
    other: /anthropic/i,
    off: "ANTHROPIC_OPEN_TELEMETRY=false",
  },
];

/** The provider whose SDK's own tracing `scope` is (`own: true`), or whose client it instruments (`own: false`). */
export function providerOwnTracing(scope: string): { provider: string; own: boolean } | undefined {
  for (const { provider, own, other } of PROVIDER_OWN_TRACING) {
    if (scope.startsWith(own)) return { provider, own: true };
    if (other.test(scope)) return { provider, own: false };
  }
  return undefined;
}

/**
 * The observations, across traces, with usage from another instrumentation of a client whose SDK's own tracing has
 * spans among `nodes` of the same `source` (one process: its resource): that tracing records the same call.
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
