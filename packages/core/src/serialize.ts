import { describeError } from "./log/describe.js";
import { RepeatLog } from "./log/repeat-log.js";

/** Longest string, in UTF-16 code units, that is written as an attribute value; longer text is cut. */
export const MAX_SERIALIZED_LENGTH = 1_000_000;
/** Deepest nesting the fallback serializer walks into; deeper values become {@link MAX_DEPTH_MARKER}. */
export const MAX_SERIALIZE_DEPTH = 64;
/** Longest observation (span) name, in UTF-16 code units; longer names are cut. */
export const MAX_NAME_LENGTH = 1_000;

/** Written when a value cannot be serialized at all. */
export const FAILED_TO_SERIALIZE = "<failed to serialize>";
/** Written in place of an object that contains itself. */
export const CIRCULAR_MARKER = "[Circular]";
/** Written in place of a value nested deeper than {@link MAX_SERIALIZE_DEPTH}. */
export const MAX_DEPTH_MARKER = "[Max depth]";

const unreadable = new RepeatLog();

/** Logs that a value could not be read and was written as {@link FAILED_TO_SERIALIZE} (first time in full, then counts). */
export function noteUnreadable(error: unknown): void {
  const kind = `a value could not be read and was recorded as ${FAILED_TO_SERIALIZE}`;
  unreadable.warn(kind, `${kind}: ${describeError(error)}`);
}

/** One field of an object a caller passed; `undefined` for a non-object or a field that throws (logged). */
export function readField<T = unknown>(object: unknown, key: string): T | undefined {
  if ((typeof object !== "object" && typeof object !== "function") || object === null) return undefined;
  try {
    return (object as Record<string, unknown>)[key] as T | undefined;
  } catch (error) {
    noteUnreadable(error);
    return undefined;
  }
}

/** `text` cut to at most `max` UTF-16 code units, never inside a surrogate pair, with a marker saying how much. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = cutAtCodePoint(text, max);
  return `${kept}...[truncated ${text.length - kept.length} characters]`;
}

/** The first `length` UTF-16 code units of `text`, one fewer when the last would be half of a surrogate pair. */
export function cutAtCodePoint(text: string, length: number): string {
  if (length >= text.length) return text;
  let end = Math.max(0, length);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** Any value as short text: strings as they are, everything else by `String()`; never throws. */
export function stableText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    if (typeof value === "function")
      return typeof value.name === "string" && value.name ? `[Function: ${value.name}]` : "[Function]";
    return String(value);
  } catch (error) {
    noteUnreadable(error);
    return FAILED_TO_SERIALIZE;
  }
}

/**
 * A value as attribute text: strings as they are, anything else as JSON, cut at {@link MAX_SERIALIZED_LENGTH}. Plain
 * data takes one `JSON.stringify`; what it cannot express faithfully goes through {@link toJsonSafe}: errors become
 * `{name, message, stack, cause}`, maps objects, sets arrays, binary data `[Uint8Array: 1048576 bytes]`, cycles and
 * unreadable values markers. `undefined` for `undefined`; a function or symbol given directly becomes a stable text
 * (inside objects they are left out, as JSON does). Never throws.
 */
export function serializeValue(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return truncateText(value, MAX_SERIALIZED_LENGTH);
    case "number":
      return Number.isFinite(value) ? String(value) : "null"; // as JSON.stringify writes them
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return undefined;
    case "function":
    case "symbol":
      return truncateText(stableText(value), MAX_SERIALIZED_LENGTH);
  }
  let text: string | undefined;
  try {
    if (!isPlainData(value, 0)) return careful(value);
    text = JSON.stringify(value);
  } catch {
    return careful(value);
  }
  return text === undefined ? undefined : truncateText(text, MAX_SERIALIZED_LENGTH);
}

/**
 * A copy of `value` as plain JSON data, what JSON cannot express replaced as {@link serializeValue} says (strings not
 * cut); `undefined` for `undefined`, functions and symbols. Never throws.
 */
export function toJsonSafe(value: unknown): unknown {
  try {
    return walk(value, new Set(), 0);
  } catch (error) {
    noteUnreadable(error);
    return FAILED_TO_SERIALIZE;
  }
}

function careful(value: unknown): string | undefined {
  const safe = toJsonSafe(value);
  if (safe === FAILED_TO_SERIALIZE) return FAILED_TO_SERIALIZE;
  try {
    const text = JSON.stringify(safe);
    return text === undefined ? undefined : truncateText(text, MAX_SERIALIZED_LENGTH);
  } catch (error) {
    noteUnreadable(error);
    return FAILED_TO_SERIALIZE;
  }
}

/**
 * Whether `JSON.stringify` writes `value` faithfully: no BigInt, error, map, set or binary data, not nested past the
 * depth limit (where a cycle ends up too); `toJSON` is trusted. May throw (a throwing getter): the caller then walks.
 */
function isPlainData(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return typeof value !== "bigint";
  if (depth >= MAX_SERIALIZE_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "object" ? item !== null && !isPlainData(item, depth + 1) : typeof item === "bigint")
        return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof Error || value instanceof Map || value instanceof Set || binarySummary(value)) return false;
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return true;
  }
  for (const key in value) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === "object" ? item !== null && !isPlainData(item, depth + 1) : typeof item === "bigint")
      return false;
  }
  return true;
}

/** Copies `value` into plain JSON data, replacing what JSON cannot express. */
function walk(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const obj = value as object;
  if (ancestors.has(obj)) return CIRCULAR_MARKER;
  if (depth >= MAX_SERIALIZE_DEPTH) return MAX_DEPTH_MARKER;
  ancestors.add(obj);
  try {
    return walkObject(obj, ancestors, depth + 1);
  } catch (error) {
    noteUnreadable(error);
    return FAILED_TO_SERIALIZE;
  } finally {
    ancestors.delete(obj);
  }
}

function walkObject(obj: object, ancestors: Set<object>, depth: number): unknown {
  if (Array.isArray(obj)) {
    const out: unknown[] = [];
    for (let i = 0; i < obj.length; i++) {
      const safe = walk(readItem(obj, i), ancestors, depth);
      out.push(safe === undefined ? null : safe);
    }
    return out;
  }
  const binary = binarySummary(obj);
  if (binary !== undefined) return binary;
  if (obj instanceof Error) {
    const out: Record<string, unknown> = { name: readItem(obj, "name"), message: readItem(obj, "message") };
    const stack = readItem(obj, "stack");
    if (stack) out.stack = stack;
    const cause = readItem(obj, "cause");
    if (cause !== undefined) out.cause = walk(cause, ancestors, depth);
    return walkRecord(out, ancestors, depth);
  }
  if (obj instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of obj) out[stableText(key)] = walk(item, ancestors, depth);
    return out;
  }
  if (obj instanceof Set) return walkObject([...obj], ancestors, depth);
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return walk(toJSON.call(obj), ancestors, depth);
  return walkRecord(obj as Record<string, unknown>, ancestors, depth);
}

function walkRecord(obj: Record<string, unknown>, ancestors: Set<object>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const safe = walk(readItem(obj, key), ancestors, depth);
    if (safe !== undefined) out[key] = safe;
  }
  return out;
}

/** An object's own enumerable keys; undefined when reading them throws (a Proxy; logged). */
export function ownKeys(obj: object): string[] | undefined {
  try {
    return Object.keys(obj);
  } catch (error) {
    noteUnreadable(error);
    return undefined;
  }
}

/** One property; a getter that throws gives {@link FAILED_TO_SERIALIZE} (logged). */
export function readItem(obj: object, key: PropertyKey): unknown {
  try {
    return (obj as Record<PropertyKey, unknown>)[key];
  } catch (error) {
    noteUnreadable(error);
    return FAILED_TO_SERIALIZE;
  }
}

/** `[Uint8Array: 1048576 bytes]` for binary data (typed arrays, buffers, data views), else undefined. */
function binarySummary(obj: object): string | undefined {
  const isBuffer =
    obj instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && obj instanceof SharedArrayBuffer);
  if (!isBuffer && !ArrayBuffer.isView(obj)) return undefined;
  const name = (Object.getPrototypeOf(obj) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const bytes = (obj as ArrayBuffer).byteLength;
  return `[${typeof name === "string" && name ? name : "binary data"}: ${bytes} bytes]`;
}
