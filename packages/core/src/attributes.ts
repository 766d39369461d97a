// The span attribute keys the svc server reads, and the few helpers every reader of attribute values shares. The dev
// server loads this module from source (ARCHITECTURE.md, "Reading spans as observations"): it imports nothing.

/** OpenTelemetry span attribute keys that the svc server reads (wire names: never change one without the server). */
export const SvcOtelSpanAttributes = {
  // Trace level
  TRACE_NAME: "svc.trace.name",
  TRACE_USER_ID: "user.id",
  TRACE_SESSION_ID: "session.id",
  TRACE_TAGS: "svc.trace.tags",
  TRACE_PUBLIC: "svc.trace.public",
  TRACE_METADATA: "svc.trace.metadata",
  TRACE_INPUT: "svc.trace.input",
  TRACE_OUTPUT: "svc.trace.output",

  // Observation level
  OBSERVATION_TYPE: "svc.observation.type",
  OBSERVATION_INPUT: "svc.observation.input",
  OBSERVATION_OUTPUT: "svc.observation.output",
  OBSERVATION_METADATA: "svc.observation.metadata",
  OBSERVATION_LEVEL: "svc.observation.level",
  OBSERVATION_STATUS_MESSAGE: "svc.observation.status_message",
  OBSERVATION_MODEL: "svc.observation.model.name",
  OBSERVATION_MODEL_PARAMETERS: "svc.observation.model.parameters",
  OBSERVATION_USAGE_DETAILS: "svc.observation.usage_details",
  OBSERVATION_COST_DETAILS: "svc.observation.cost_details",
  OBSERVATION_COMPLETION_START_TIME: "svc.observation.completion_start_time",
  OBSERVATION_PROMPT_NAME: "svc.observation.prompt.name",
  OBSERVATION_PROMPT_VERSION: "svc.observation.prompt.version",

  // General
  ENVIRONMENT: "svc.environment",
  RELEASE: "svc.release",
  VERSION: "svc.version",

  // Internal
  AS_ROOT: "svc.internal.as_root",
  IS_APP_ROOT: "svc.internal.is_app_root",

  // Experiments
  EXPERIMENT_ID: "svc.experiment.id",
  EXPERIMENT_NAME: "svc.experiment.name",
  EXPERIMENT_DESCRIPTION: "svc.experiment.description",
  EXPERIMENT_METADATA: "svc.experiment.metadata",
  EXPERIMENT_DATASET_ID: "svc.experiment.dataset.id",
  EXPERIMENT_ITEM_ID: "svc.experiment.item.id",
  EXPERIMENT_ITEM_VERSION: "svc.experiment.item.version",
  EXPERIMENT_ITEM_METADATA: "svc.experiment.item.metadata",
  EXPERIMENT_ITEM_ROOT_OBSERVATION_ID: "svc.experiment.item.root_observation_id",
  EXPERIMENT_ITEM_EXPECTED_OUTPUT: "svc.experiment.item.expected_output",
} as const;

/** One of the attribute keys in {@link SvcOtelSpanAttributes}. */
export type SvcOtelSpanAttribute = (typeof SvcOtelSpanAttributes)[keyof typeof SvcOtelSpanAttributes];

/** Name and instrumentation scope of the tracer the SDK creates its spans with. */
export const SVC_TRACER_NAME = "svc-sdk";

/** Attribute values of one span, as read from OTLP (strings, numbers, booleans, arrays). */
export type SpanAttributeValues = Readonly<Record<string, unknown>>;

/** An attribute value as text: strings as they are, numbers and booleans written out, arrays as JSON text. */
export function attributeText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** An object or array parsed back from its JSON text; anything else as it is (the text `42` stays text). */
export function parseJsonText(value: unknown): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** A plain object (not null, not an array), as JSON text parses into. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A prompt link (`{ name, version, isFallback? }`) read from any value, or why it is not one: a non-empty name and an
 * integer version (a string of digits is read as one). A read that throws (a getter, a Proxy) is the caller's to catch.
 */
export function readPromptLink(value: unknown): { name: string; version: number; isFallback: boolean } | string {
  if (typeof value !== "object" || value === null) return "not an object";
  const { name, version, isFallback } = value as Record<string, unknown>;
  if (typeof name !== "string" || name === "") return "name must be a non-empty string";
  const parsed = typeof version === "string" && /^\d+$/.test(version) ? Number(version) : version;
  if (typeof parsed !== "number" || !Number.isSafeInteger(parsed))
    return `version must be an integer (name=${JSON.stringify(name.slice(0, 80))})`;
  return { name, version: parsed, isFallback: isFallback === true };
}
