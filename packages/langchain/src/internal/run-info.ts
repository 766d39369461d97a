import type { Serialized } from "@langchain/core/load/serializable";
import { isPlainObject, ownKeys, RepeatLog, readField, readItem, serializeValue, textOf } from "@svc/core";

/** Warnings a misbehaving chain can repeat on every callback, shared by all handlers: the first line, then counts. */
export const repeats = new RepeatLog();

const RESERVED_METADATA_KEYS = new Set(["svcPrompt", "svcUserId", "svcSessionId"]);

/** The observation name of a run: the run name, else the last part of the serialized id, else `fallback`. */
export function runName(name: string | undefined, serialized: Serialized | undefined, fallback: string): string {
  if (typeof name === "string" && name !== "") return name;
  const id = (serialized as { id?: unknown } | undefined)?.id;
  const last = Array.isArray(id) ? id.at(-1) : undefined;
  return typeof last === "string" && last !== "" ? last : fallback;
}

/**
 * Observation metadata of a run: its LangChain tags (when any) and its metadata, without the keys that only
 * steer this handler (`svcPrompt`, `svcUserId`, `svcSessionId`).
 */
export function observationMetadata(tags?: readonly string[], metadata?: Record<string, unknown>) {
  const result: Record<string, unknown> = {};
  if (tags?.length) result.tags = tags;
  // LangChain passes a plain object; anything else (a string or a byte array has a key per item) is none.
  if (isPlainObject(metadata))
    for (const key of ownKeys(metadata) ?? [])
      if (!RESERVED_METADATA_KEYS.has(key)) result[key] = readItem(metadata, key);
  return Object.keys(result).length > 0 ? result : undefined;
}

/** The status message of a failed run: the error's text, plus the provider's error details when it carries them. */
export function errorMessage(err: unknown): string {
  const text = textOf(err);
  const details = readField(err, "error");
  if (details === undefined || details === null) return text;
  return `${text}\n\nError details:\n${prettyJson(details)}`;
}

function prettyJson(value: unknown): string {
  try {
    const text = JSON.stringify(value, null, 2);
    if (text !== undefined) return text;
  } catch {
    // Written by the careful serializer below.
  }
  return serializeValue(value) ?? "";
}

/** The value of `key` in run metadata or parameters, if it is a non-empty string. */
export function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = readField(record, key);
  return typeof value === "string" && value !== "" ? value : undefined;
}
