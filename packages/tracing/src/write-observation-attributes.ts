import type { Attributes } from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  FAILED_TO_SERIALIZE,
  MAX_NAME_LENGTH,
  MAX_SERIALIZED_LENGTH,
  noteUnreadable,
  readPromptLink,
  safely,
  serializeValue,
  stableText,
  truncateText,
  writeMetadata,
} from "@svc/core";
import { repeats } from "./internal/options.js";
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

const FIELD_NAMES = (
  "input output metadata level statusMessage version environment model modelParameters usageDetails costDetails " +
  "completionStartTime prompt"
).split(" ") as (keyof Fields)[];

function readEach(attributes: SvcObservationAttributes): Fields {
  const fields: Partial<Fields> = {};
  for (const name of FIELD_NAMES) {
    try {
      fields[name] = attributes[name];
    } catch (error) {
      noteUnreadable(error);
      fields[name] = UNREADABLE;
    }
  }
  return fields as Fields;
}

/**
 * Writes the attributes of `fields`, read first, all of them, with plain property reads at their own sites (fast
 * for the shapes each sees); a read that throws leaves `target` untouched.
 */
function writeFields(target: Attributes, fields: SvcObservationAttributes | Fields): void {
  const { input, output, metadata, level, statusMessage, version, environment, model } = fields;
  const { modelParameters, usageDetails, costDetails, completionStartTime, prompt } = fields;
  setText(target, A.OBSERVATION_INPUT, input);
  setText(target, A.OBSERVATION_OUTPUT, output);
  if (metadata === UNREADABLE) target[A.OBSERVATION_METADATA] = FAILED_TO_SERIALIZE;
  else writeMetadata(target, A.OBSERVATION_METADATA, metadata);
  setString(target, A.OBSERVATION_LEVEL, level);
  setString(target, A.OBSERVATION_STATUS_MESSAGE, statusMessage);
  setString(target, A.VERSION, version);
  setString(target, A.ENVIRONMENT, environment);
  setString(target, A.OBSERVATION_MODEL, model);
  setText(target, A.OBSERVATION_MODEL_PARAMETERS, modelParameters);
  setText(target, A.OBSERVATION_USAGE_DETAILS, usageDetails);
  setText(target, A.OBSERVATION_COST_DETAILS, costDetails);
  if (completionStartTime !== undefined && completionStartTime !== UNREADABLE) {
    const iso = toIsoString(completionStartTime);
    if (iso !== undefined) target[A.OBSERVATION_COMPLETION_START_TIME] = iso;
  }
  if (prompt !== undefined && prompt !== UNREADABLE) setPrompt(target, prompt);
}

/** Marks a field whose read threw. */
const UNREADABLE = Symbol("unreadable");

function setText(target: Attributes, key: string, value: unknown): void {
  if (value === undefined) return;
  const text = value === UNREADABLE ? FAILED_TO_SERIALIZE : serializeValue(value);
  if (text !== undefined) target[key] = text;
}

function setString(target: Attributes, key: string, value: unknown): void {
  if (value === undefined || value === UNREADABLE) return;
  target[key] = truncateText(stableText(value), MAX_SERIALIZED_LENGTH);
}

function setPrompt(target: Attributes, prompt: unknown): void {
  try {
    const why = writePromptLink(target, prompt);
    if (why !== undefined) repeats.warn("observation prompt dropped", `observation attributes: prompt dropped: ${why}`);
  } catch (error) {
    noteUnreadable(error);
  }
}

/**
 * Writes the link to `prompt` into `target`, for an observation's prompt and a propagated one alike: nothing for a
 * fallback prompt, which the server does not hold; else both attributes (see `readPromptLink`). Returns why nothing was
 * written when `prompt` is no link. A read that throws (a getter, a Proxy) is the caller's to catch.
 */
export function writePromptLink(target: Attributes, prompt: unknown): string | undefined {
  if ((prompt as { isFallback?: unknown } | null)?.isFallback) return undefined;
  const link = readPromptLink(prompt);
  if (typeof link === "string") return link;
  target[A.OBSERVATION_PROMPT_NAME] = truncateText(link.name, MAX_NAME_LENGTH);
  target[A.OBSERVATION_PROMPT_VERSION] = link.version;
  return undefined;
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
