import type { Attributes } from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A, safely, serializeValue, writeMetadata } from "@svc/core";
import type { SvcObservationAttributes, SvcObservationType } from "./types.js";

/**
 * Converts observation attributes into OpenTelemetry span attributes with svc keys.
 * Values are serialized here, once; undefined fields are left out. Never throws.
 * @example
 * span.setAttributes(createObservationAttributes("generation", { model: "gpt-4o", input: messages }));
 */
export function createObservationAttributes(
  type: SvcObservationType,
  attributes: SvcObservationAttributes | undefined,
): Attributes {
  const out: Attributes = { [A.OBSERVATION_TYPE]: type };
  if (attributes) safely("createObservationAttributes", () => writeObservationAttributes(out, attributes));
  return out;
}

/** Writes the svc attributes for `attributes` into `target` (the type key excepted). */
export function writeObservationAttributes(target: Attributes, attributes: SvcObservationAttributes): void {
  const {
    input,
    output,
    metadata,
    level,
    statusMessage,
    version,
    environment,
    completionStartTime,
    model,
    modelParameters,
    usageDetails,
    costDetails,
    prompt,
  } = attributes;
  if (input !== undefined) setText(target, A.OBSERVATION_INPUT, input);
  if (output !== undefined) setText(target, A.OBSERVATION_OUTPUT, output);
  if (metadata !== undefined) writeMetadata(target, A.OBSERVATION_METADATA, metadata);
  if (level !== undefined) target[A.OBSERVATION_LEVEL] = level;
  if (statusMessage !== undefined) target[A.OBSERVATION_STATUS_MESSAGE] = String(statusMessage);
  if (version !== undefined) target[A.VERSION] = String(version);
  if (environment !== undefined) target[A.ENVIRONMENT] = String(environment);
  if (model !== undefined) target[A.OBSERVATION_MODEL] = String(model);
  if (modelParameters !== undefined) setText(target, A.OBSERVATION_MODEL_PARAMETERS, modelParameters);
  if (usageDetails !== undefined) setText(target, A.OBSERVATION_USAGE_DETAILS, usageDetails);
  if (costDetails !== undefined) setText(target, A.OBSERVATION_COST_DETAILS, costDetails);
  if (completionStartTime !== undefined) {
    const iso = toIsoString(completionStartTime);
    if (iso !== undefined) target[A.OBSERVATION_COMPLETION_START_TIME] = iso;
  }
  if (prompt !== undefined && prompt !== null && !prompt.isFallback) {
    if (typeof prompt.name === "string" && prompt.name) target[A.OBSERVATION_PROMPT_NAME] = prompt.name;
    const promptVersion = Number(prompt.version);
    if (Number.isInteger(promptVersion)) target[A.OBSERVATION_PROMPT_VERSION] = promptVersion;
  }
}

function setText(target: Attributes, key: string, value: unknown): void {
  const text = serializeValue(value);
  if (text !== undefined) target[key] = text;
}

function toIsoString(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value).toISOString();
  return undefined;
}
