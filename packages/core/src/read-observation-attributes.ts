// How a span's attributes read as an observation and trace attributes, as the server reads them: `svc.*` first, the
// GenAI conventions for the rest. The dev server runs it from source: it imports only the other readers, by `.ts`.

import {
  SvcOtelSpanAttributes as A,
  attributeText,
  isObject,
  parseJsonText,
  type SpanAttributeValues,
} from "./attributes.ts";
import { OBSERVATION_TYPES, readGenAiFields } from "./genai-attributes.ts";

/** Keys the server still reads from spans of earlier SDKs, each beside the key that replaced it. */
const LEGACY = {
  METADATA: "svc.metadata",
  USER_ID: "svc.user.id",
  SESSION_ID: "svc.session.id",
  TAGS: "svc.tags",
  PUBLIC: "svc.public",
  PROMPT_NAME: "svc.prompt.name",
  PROMPT_VERSION: "svc.prompt.version",
} as const;

/** `svc.observation.level` values (upper case) and the level the server stores for each. */
const LEVELS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    DEBUG: "DEBUG TRACE VERBOSE",
    DEFAULT: "DEFAULT INFO LOG NOTICE OK SUCCESS",
    WARNING: "WARNING WARN",
    ERROR: "ERROR FATAL CRITICAL",
  }).flatMap(([level, names]) => names.split(" ").map((name) => [name, level])),
);

/** The parts of a span besides its attributes that an observation reads. */
export interface SpanFacts {
  /** The span name. */
  name: string;
  /** The OpenTelemetry status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The status message, if any. */
  statusMessage: string | undefined;
  /** The resource's attributes, where the span's own leave a value out. */
  resource?: SpanAttributeValues;
  /** The instrumentation scope's name: the AI SDK's scope `ai` is read by rules of its own. */
  scope?: string;
}

/** The trace attributes one span carries, read by {@link readTraceFields}. */
export interface TraceFields {
  /** `svc.trace.name`. */
  name: string | undefined;
  /** `user.id`. */
  userId: string | undefined;
  /** `session.id`, else `gen_ai.conversation.id`. */
  sessionId: string | undefined;
  /** `svc.trace.tags`: an array, a JSON array or comma-separated text. */
  tags: string[];
  /** `svc.trace.metadata`, one key per top-level key. */
  metadata: Record<string, unknown>;
  /** `svc.trace.public`. */
  public: boolean;
  /** `svc.trace.input`, as sent; undefined when absent. */
  input: unknown;
  /** `svc.trace.output`, as sent. */
  output: unknown;
}

/** The observation fields one span's attributes give, read by {@link readObservationFields}. */
export interface ObservationFields {
  /** Lower case: `svc.observation.type` if it names one, else what the GenAI attributes give. */
  type: string;
  /** The input as sent (JSON text or a plain value). */
  input: unknown;
  /** The output as sent. */
  output: unknown;
  /** `svc.observation.metadata`, one key per top-level key, objects parsed back from their JSON text. */
  metadata: Record<string, unknown>;
  /** `svc.observation.model.name`, else the GenAI model. */
  model: string | undefined;
  /** `svc.observation.model.parameters`, parsed. */
  modelParameters: unknown;
  /** Token counts by kind; OpenAI usage shapes read as `input`, `output`, `total`. */
  usage: Record<string, number> | undefined;
  /** `svc.observation.cost_details`: costs by kind. */
  cost: Record<string, number> | undefined;
  /** `DEBUG`, `DEFAULT`, `WARNING` or `ERROR`: the declared level, else `ERROR` for an error status. */
  level: string;
  /** `svc.observation.status_message`, else the span's status message. */
  statusMessage: string | undefined;
  /** `svc.environment` of the span, else of the resource (`deployment.environment.name` too). */
  environment: string | undefined;
  /** `svc.release` of the span, else of the resource. */
  release: string | undefined;
  /** `svc.version`, else the resource's `service.version`. */
  version: string | undefined;
  /** The linked prompt's name. */
  promptName: string | undefined;
  /** The linked prompt's version, when an integer. */
  promptVersion: number | undefined;
  /** When a streamed generation's first token arrived (ISO 8601). */
  completionStartTime: string | undefined;
  /** Whether the span is to be shown as a root although it has a parent. */
  asRoot: boolean;
  /** The trace attributes this span carries. */
  trace: TraceFields;
}

/** Reads one span's attributes into observation fields. */
export function readObservationFields(span: SpanFacts, a: SpanAttributeValues): ObservationFields {
  const genAi = readGenAiFields(a, span.scope);
  const resource = span.resource ?? {};
  const declaredType = attributeText(a[A.OBSERVATION_TYPE])?.toLowerCase();
  const promptVersion = Number(attributeText(a[A.OBSERVATION_PROMPT_VERSION] ?? a[LEGACY.PROMPT_VERSION]));
  const usage = a[A.OBSERVATION_USAGE_DETAILS];
  return {
    type: declaredType && OBSERVATION_TYPES.has(declaredType) ? declaredType : genAi.type,
    input: a[A.OBSERVATION_INPUT] ?? genAi.input,
    output: a[A.OBSERVATION_OUTPUT] ?? genAi.output,
    metadata: metadataOf(a, [A.OBSERVATION_METADATA, LEGACY.METADATA]),
    model: attributeText(a[A.OBSERVATION_MODEL]) ?? genAi.model,
    modelParameters: parseJsonText(a[A.OBSERVATION_MODEL_PARAMETERS]),
    usage: usage !== undefined ? usageOf(parseJsonText(usage)) : genAi.usage,
    cost: numbers(parseJsonText(a[A.OBSERVATION_COST_DETAILS])),
    level:
      LEVELS[attributeText(a[A.OBSERVATION_LEVEL])?.toUpperCase() ?? ""] ??
      (span.statusCode === 2 ? "ERROR" : "DEFAULT"),
    statusMessage: attributeText(a[A.OBSERVATION_STATUS_MESSAGE]) ?? (span.statusMessage || undefined),
    environment:
      attributeText(a[A.ENVIRONMENT]) ??
      firstText(resource, [A.ENVIRONMENT, "deployment.environment.name", "deployment.environment"]),
    release: attributeText(a[A.RELEASE]) ?? attributeText(resource[A.RELEASE]),
    version: attributeText(a[A.VERSION]) ?? attributeText(resource["service.version"]),
    promptName: attributeText(a[A.OBSERVATION_PROMPT_NAME] ?? a[LEGACY.PROMPT_NAME]),
    promptVersion: Number.isInteger(promptVersion) ? promptVersion : undefined,
    completionStartTime: timestampOf(a[A.OBSERVATION_COMPLETION_START_TIME]),
    asRoot: isTrue(a[A.IS_APP_ROOT]) || isTrue(a[A.AS_ROOT]),
    trace: readTraceFields(a),
  };
}

/** Reads the trace attributes one span carries. */
export function readTraceFields(a: SpanAttributeValues): TraceFields {
  return {
    name: firstText(a, [A.TRACE_NAME]),
    userId: firstText(a, [A.TRACE_USER_ID, LEGACY.USER_ID]),
    sessionId: firstText(a, [A.TRACE_SESSION_ID, LEGACY.SESSION_ID, "gen_ai.conversation.id"]),
    tags: [...new Set([...tagsOf(a[A.TRACE_TAGS]), ...tagsOf(a[LEGACY.TAGS])])],
    metadata: metadataOf(a, [A.TRACE_METADATA, LEGACY.METADATA]),
    public: isTrue(a[A.TRACE_PUBLIC]) || isTrue(a[LEGACY.PUBLIC]),
    input: a[A.TRACE_INPUT],
    output: a[A.TRACE_OUTPUT],
  };
}

function firstText(a: SpanAttributeValues, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = attributeText(a[key]);
    if (value) return value;
  }
  return undefined;
}

function isTrue(value: unknown): boolean {
  return value === true || value === "true";
}

function numbers(value: unknown): Record<string, number> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === "number" && Number.isFinite(v)) out[key] = v;
  return out;
}

/** Usage as `{input, output, total, ...}`; OpenAI usage shapes are mapped onto those names. */
function usageOf(value: unknown): Record<string, number> | undefined {
  const usage = numbers(value);
  if (!usage || !("prompt_tokens" in usage || "input_tokens" in usage)) return usage;
  const mapped = {
    input: usage.prompt_tokens ?? usage.input_tokens,
    output: usage.completion_tokens ?? usage.output_tokens,
    total: usage.total_tokens,
  };
  return Object.fromEntries(Object.entries(mapped).filter((e): e is [string, number] => e[1] !== undefined));
}

function timestampOf(value: unknown): string | undefined {
  const text = attributeText(value)?.replace(/^"|"$/g, "");
  const ms = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function tagsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== "string" || value === "") return [];
  const parsed = parseJsonText(value);
  if (Array.isArray(parsed)) return parsed.map(String);
  return value.split(",").map((tag) => tag.trim());
}

/** Metadata from JSON-object attributes `prefix` and per-key attributes `prefix.<key>`, prefix by prefix. */
function metadataOf(a: SpanAttributeValues, prefixes: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of prefixes) {
    const whole = parseJsonText(a[prefix]);
    if (isObject(whole)) Object.assign(out, whole);
    const keys = Object.keys(a)
      .filter((key) => key.startsWith(`${prefix}.`))
      .map((key) => key.slice(prefix.length + 1))
      .sort((x, y) => x.split(".").length - y.split(".").length);
    for (const key of keys) {
      // Nested objects arrive whole as JSON text and again leaf by leaf (`key.a.b`); the leaves repeat the object.
      const root = key.split(".")[0] as string;
      if (root !== key && isObject(out[root])) continue;
      out[key] = parseJsonText(a[`${prefix}.${key}`]);
    }
  }
  return out;
}
