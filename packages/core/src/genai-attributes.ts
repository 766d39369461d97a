// How the attributes of spans from other instrumentation (OpenTelemetry GenAI conventions, the AI SDK's `ai.*`
// spans, OpenInference) read as an observation, the way the server reads them for OTLP ingestion. Shared by the
// test kit of @svc/otel and the dev server, which runs from source under Node's type stripping: this module
// therefore imports nothing.

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

/** The AI SDK's own span names (`ai.*`, its legacy integration): a model call is a generation. */
const AI_SDK_SPAN_TYPES: Readonly<Record<string, string>> = {
  "ai.generateText.doGenerate": "generation",
  "ai.streamText.doStream": "generation",
  "ai.generateObject.doGenerate": "generation",
  "ai.streamObject.doStream": "generation",
  "ai.embed.doEmbed": "embedding",
  "ai.embedMany.doEmbed": "embedding",
  "ai.toolCall": "tool",
};

/** Usage attributes and the usage kind each counts; the first present of each kind wins. */
const USAGE_ATTRIBUTES: readonly (readonly [string, string])[] = [
  ["gen_ai.usage.input_tokens", "input"],
  ["gen_ai.usage.prompt_tokens", "input"],
  ["ai.usage.inputTokens", "input"],
  ["ai.usage.promptTokens", "input"],
  ["gen_ai.usage.output_tokens", "output"],
  ["gen_ai.usage.completion_tokens", "output"],
  ["ai.usage.outputTokens", "output"],
  ["ai.usage.completionTokens", "output"],
  ["gen_ai.usage.total_tokens", "total"],
  ["ai.usage.totalTokens", "total"],
];

/** Reads the type, model, usage, input and output of a span from the GenAI and AI SDK conventions. */
export function readGenAiFields(name: string, attributes: SpanAttributeValues): GenAiFields {
  return {
    type: genAiType(name, attributes),
    model: text(attributes["gen_ai.response.model"] ?? attributes["gen_ai.request.model"] ?? attributes["ai.model.id"]),
    usage: genAiUsage(attributes),
    input: first(attributes, ["gen_ai.input.messages", "gen_ai.prompt", "ai.prompt.messages", "ai.prompt"]),
    output: first(attributes, [
      "gen_ai.output.messages",
      "gen_ai.completion",
      "ai.response.text",
      "ai.response.object",
      "ai.response.toolCalls",
    ]),
  };
}

function genAiType(name: string, a: SpanAttributeValues): string {
  const kind = text(a["openinference.span.kind"])?.toLowerCase();
  if (kind === "llm") return "generation";
  if (kind && OBSERVATION_TYPES.has(kind)) return kind;
  const operation = text(a["gen_ai.operation.name"])?.toLowerCase();
  if (operation && Object.hasOwn(OPERATION_TYPES, operation)) return OPERATION_TYPES[operation] as string;
  const aiOperation = text(a["ai.operationId"]) ?? name;
  if (Object.hasOwn(AI_SDK_SPAN_TYPES, aiOperation)) return AI_SDK_SPAN_TYPES[aiOperation] as string;
  return "span";
}

function genAiUsage(a: SpanAttributeValues): Record<string, number> | undefined {
  const usage: Record<string, number> = {};
  for (const [key, kind] of USAGE_ATTRIBUTES) {
    const value = a[key];
    if (usage[kind] === undefined && typeof value === "number" && Number.isFinite(value)) usage[kind] = value;
  }
  if (usage.input !== undefined && usage.output !== undefined) usage.total ??= usage.input + usage.output;
  return Object.keys(usage).length > 0 ? usage : undefined;
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
 * The observations of one trace whose usage repeats that of the model calls below them: an agent or a step span
 * (anything but a generation or an embedding) with usage, that has a descendant with usage. Their usage is not
 * counted, so that a trace's tokens are summed once (the AI SDK puts a call's tokens on `invoke_agent` and on its
 * `chat` span).
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
  for (const node of nodes)
    if (node.hasUsage && !isModelCall(node.type) && withUsageBelow.has(node.id)) out.add(node.id);
  return out;
}

function isModelCall(type: string): boolean {
  const lower = type.toLowerCase();
  return lower === "generation" || lower === "embedding";
}

function first(a: SpanAttributeValues, keys: readonly string[]): unknown {
  for (const key of keys) if (a[key] !== undefined && a[key] !== null) return a[key];
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  return typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
}
