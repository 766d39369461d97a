import type { Attributes } from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  FAILED_TO_SERIALIZE,
  MAX_NAME_LENGTH,
  MAX_SERIALIZED_LENGTH,
  noteUnreadable,
  safely,
  serializeValue,
  stableText,
  truncateText,
  writeMetadata,
} from "@svc/core";
import type { SvcObservationAttributes, SvcObservationType, SvcPromptReference } from "./types.js";

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

/**
 * Writes the svc attributes for `attributes` into `target` (the type key excepted). Each field is read on its
 * own: a field that cannot be read (a throwing getter, a Proxy) costs only that field, and input, output and
 * metadata that cannot be read are written as {@link FAILED_TO_SERIALIZE}. Never throws.
 */
export function writeObservationAttributes(target: Attributes, attributes: SvcObservationAttributes): void {
  if (typeof attributes !== "object" || attributes === null) return;
  try {
    writeFields(target, attributes);
  } catch {
    // A read threw (every field is read before anything is written): read them one by one.
    writeFields(target, readEach(attributes));
  }
}

/** The fields of observation attributes that are written, as read: {@link UNREADABLE} where the read threw. */
type Fields = { [K in keyof Required<SvcObservationAttributes>]: unknown };

function readEach(attributes: SvcObservationAttributes): Fields {
  return {
    input: field(attributes, "input"),
    output: field(attributes, "output"),
    metadata: field(attributes, "metadata"),
    level: field(attributes, "level"),
    statusMessage: field(attributes, "statusMessage"),
    version: field(attributes, "version"),
    environment: field(attributes, "environment"),
    model: field(attributes, "model"),
    modelParameters: field(attributes, "modelParameters"),
    usageDetails: field(attributes, "usageDetails"),
    costDetails: field(attributes, "costDetails"),
    completionStartTime: field(attributes, "completionStartTime"),
    prompt: field(attributes, "prompt"),
  };
}

function field(attributes: SvcObservationAttributes, name: keyof SvcObservationAttributes): unknown {
  try {
    return attributes[name];
  } catch (error) {
    noteUnreadable(error);
    return UNREADABLE;
  }
}

/**
 * Writes the attributes of `fields`, read first, all of them, with plain property reads at their own sites (fast
 * for the shapes each sees); a read that throws leaves `target` untouched. Each attribute is stored at a site of its
 * own, which only ever sees its one key (one shared store for every key would be a megamorphic store on every call),
 * and a field that is not set costs one comparison, not a call (the first calls of a process run in the interpreter).
 */
function writeFields(target: Attributes, fields: SvcObservationAttributes | Fields): void {
  const { input, output, metadata, level, statusMessage, version, environment, model } = fields;
  const { modelParameters, usageDetails, costDetails, completionStartTime, prompt } = fields;
  if (input !== undefined) {
    const inputText = textOf(input);
    if (inputText !== undefined) target[A.OBSERVATION_INPUT] = inputText;
  }
  if (output !== undefined) {
    const outputText = textOf(output);
    if (outputText !== undefined) target[A.OBSERVATION_OUTPUT] = outputText;
  }
  if (metadata === UNREADABLE) target[A.OBSERVATION_METADATA] = FAILED_TO_SERIALIZE;
  else if (metadata !== undefined) writeMetadata(target, A.OBSERVATION_METADATA, metadata);
  if (level !== undefined) {
    const levelText = stringOf(level);
    if (levelText !== undefined) target[A.OBSERVATION_LEVEL] = levelText;
  }
  if (statusMessage !== undefined) {
    const statusMessageText = stringOf(statusMessage);
    if (statusMessageText !== undefined) target[A.OBSERVATION_STATUS_MESSAGE] = statusMessageText;
  }
  if (version !== undefined) {
    const versionText = stringOf(version);
    if (versionText !== undefined) target[A.VERSION] = versionText;
  }
  if (environment !== undefined) {
    const environmentText = stringOf(environment);
    if (environmentText !== undefined) target[A.ENVIRONMENT] = environmentText;
  }
  if (model !== undefined) {
    const modelText = stringOf(model);
    if (modelText !== undefined) target[A.OBSERVATION_MODEL] = modelText;
  }
  if (modelParameters !== undefined) {
    const modelParametersText = textOf(modelParameters);
    if (modelParametersText !== undefined) target[A.OBSERVATION_MODEL_PARAMETERS] = modelParametersText;
  }
  if (usageDetails !== undefined) {
    const usageDetailsText = textOf(usageDetails);
    if (usageDetailsText !== undefined) target[A.OBSERVATION_USAGE_DETAILS] = usageDetailsText;
  }
  if (costDetails !== undefined) {
    const costDetailsText = textOf(costDetails);
    if (costDetailsText !== undefined) target[A.OBSERVATION_COST_DETAILS] = costDetailsText;
  }
  if (completionStartTime !== undefined && completionStartTime !== UNREADABLE) {
    const iso = toIsoString(completionStartTime);
    if (iso !== undefined) target[A.OBSERVATION_COMPLETION_START_TIME] = iso;
  }
  if (typeof prompt === "object" && prompt !== null) setPrompt(target, prompt as SvcPromptReference);
}

/** Marks a field whose read threw. */
const UNREADABLE = Symbol("unreadable");

/** A field that is set, as attribute text (JSON for anything but a string). */
function textOf(value: unknown): string | undefined {
  return value === UNREADABLE ? FAILED_TO_SERIALIZE : serializeValue(value);
}

/** A field that is set, as short text; undefined when it could not be read. */
function stringOf(value: unknown): string | undefined {
  if (value === UNREADABLE) return undefined;
  return truncateText(stableText(value), MAX_SERIALIZED_LENGTH);
}

function setPrompt(target: Attributes, prompt: SvcPromptReference): void {
  try {
    if (prompt.isFallback) return;
    const { name } = prompt;
    if (typeof name === "string" && name) target[A.OBSERVATION_PROMPT_NAME] = truncateText(name, MAX_NAME_LENGTH);
    const promptVersion = Number(prompt.version);
    if (Number.isInteger(promptVersion)) target[A.OBSERVATION_PROMPT_VERSION] = promptVersion;
  } catch (error) {
    noteUnreadable(error);
  }
}

function toIsoString(value: unknown): string | undefined {
  if (typeof value === "string") return truncateText(value, MAX_NAME_LENGTH);
  try {
    const date = value instanceof Date ? value : typeof value === "number" ? new Date(value) : undefined;
    return date === undefined || Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  } catch (error) {
    noteUnreadable(error);
    return undefined;
  }
}
