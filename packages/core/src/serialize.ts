import type { Attributes, AttributeValue } from "@opentelemetry/api";

/** Longest string, in UTF-16 code units, that is written as an attribute value; longer text is cut. */
export const MAX_SERIALIZED_LENGTH = 1_000_000;
/** Deepest nesting the fallback serializer walks into; deeper values become {@link MAX_DEPTH_MARKER}. */
export const MAX_SERIALIZE_DEPTH = 64;
/** Path segments of a dotted metadata attribute below its top-level key (`a.b.c.d.e` has four). */
export const MAX_METADATA_PATH_DEPTH = 4;
/** Dotted metadata attributes written per metadata value at most (top-level keys are not counted). */
export const MAX_METADATA_PATHS = 32;

/** Written when a value cannot be serialized at all. */
export const FAILED_TO_SERIALIZE = "<failed to serialize>";
/** Written in place of an object that contains itself. */
export const CIRCULAR_MARKER = "[Circular]";
/** Written in place of a value nested deeper than {@link MAX_SERIALIZE_DEPTH}. */
export const MAX_DEPTH_MARKER = "[Max depth]";

/**
 * Turns a value into attribute text: strings as-is, everything else as JSON.
 * Never throws. Plain data goes through `JSON.stringify` once; a value it cannot handle
 * (cycles, BigInt, errors, maps, sets, throwing getters) goes through a slower, careful walk.
 * Returns `undefined` for `undefined`, functions and symbols, which JSON leaves out too.
 */
export function serializeValue(value: unknown): string | undefined {
  if (typeof value === "string") return capLength(value);
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  let text: string | undefined;
  try {
    if (value instanceof Error) return careful(value);
    text = JSON.stringify(value);
  } catch {
    return careful(value);
  }
  if (text === undefined) return undefined;
  // JSON.stringify writes errors, maps and sets as "{}": only then is the careful walk worth its cost.
  if (text.includes("{}")) return careful(value);
  return capLength(text);
}

function careful(value: unknown): string | undefined {
  try {
    const safe = toJsonSafe(value, new Set(), 0);
    if (safe === FAILED_TO_SERIALIZE) return FAILED_TO_SERIALIZE;
    const text = JSON.stringify(safe);
    return text === undefined ? undefined : capLength(text);
  } catch {
    return FAILED_TO_SERIALIZE;
  }
}

function capLength(text: string): string {
  if (text.length <= MAX_SERIALIZED_LENGTH) return text;
  const cut = text.length - MAX_SERIALIZED_LENGTH;
  return `${text.slice(0, MAX_SERIALIZED_LENGTH)}...[truncated ${cut} characters]`;
}

/** Copies `value` into plain JSON data, replacing what JSON cannot express. */
function toJsonSafe(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return value;
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
  } catch {
    return FAILED_TO_SERIALIZE;
  } finally {
    ancestors.delete(obj);
  }
}

function walkObject(obj: object, ancestors: Set<object>, depth: number): unknown {
  if (obj instanceof Error) {
    const out: Record<string, unknown> = { name: obj.name, message: obj.message };
    if (obj.stack) out.stack = obj.stack;
    if (obj.cause !== undefined) out.cause = toJsonSafe(obj.cause, ancestors, depth);
    return out;
  }
  if (Array.isArray(obj)) {
    return obj.map((item) => {
      const safe = toJsonSafe(item, ancestors, depth);
      return safe === undefined ? null : safe;
    });
  }
  if (obj instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of obj) out[String(key)] = toJsonSafe(item, ancestors, depth);
    return out;
  }
  if (obj instanceof Set) return toJsonSafe([...obj], ancestors, depth);
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return toJsonSafe(toJSON.call(obj), ancestors, depth);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    let item: unknown;
    try {
      item = (obj as Record<string, unknown>)[key];
    } catch {
      item = FAILED_TO_SERIALIZE;
    }
    out[key] = toJsonSafe(item, ancestors, depth);
  }
  return out;
}

/**
 * Writes metadata under `prefix` into `target`.
 * A plain object gives one attribute per top-level key: strings stay strings, finite numbers and
 * booleans keep their type, anything else is JSON text; nested plain objects are also written
 * leaf by leaf under dotted paths (`prefix.a.b = 1`), bounded by {@link MAX_METADATA_PATH_DEPTH}
 * and {@link MAX_METADATA_PATHS}. Any other value is written whole as JSON text at `prefix`.
 */
export function writeMetadata(target: Attributes, prefix: string, metadata: unknown): void {
  if (metadata === undefined || metadata === null) return;
  if (!isPlainObject(metadata)) {
    const text = serializeValue(metadata);
    if (text !== undefined) target[prefix] = text;
    return;
  }
  let budget: { left: number } | undefined;
  const paths = metadataPaths(prefix);
  for (const key of Object.keys(metadata)) {
    const value = metadata[key];
    const attribute = toAttributeValue(value);
    if (attribute === undefined) continue;
    const path = metadataKey(paths, prefix, key);
    target[path] = attribute;
    if (typeof attribute === "string" && isPlainObject(value)) {
      budget ??= { left: MAX_METADATA_PATHS };
      writeLeaves(target, path, value, 1, budget);
    }
  }
}

// Metadata keys repeat from call to call; building and hashing "prefix.key" each time shows up in profiles.
const KEY_CACHE_LIMIT = 1024;
const keyCaches = new Map<string, Map<string, string>>();

/** The cache of "prefix.key" paths of one prefix. */
function metadataPaths(prefix: string): Map<string, string> {
  let cache = keyCaches.get(prefix);
  if (cache === undefined) {
    cache = new Map();
    keyCaches.set(prefix, cache);
  }
  return cache;
}

function metadataKey(cache: Map<string, string>, prefix: string, key: string): string {
  let path = cache.get(key);
  if (path === undefined) {
    path = `${prefix}.${key}`;
    if (cache.size < KEY_CACHE_LIMIT) cache.set(key, path);
  }
  return path;
}

function writeLeaves(
  target: Attributes,
  path: string,
  obj: Record<string, unknown>,
  depth: number,
  budget: { left: number },
): void {
  for (const key of Object.keys(obj)) {
    if (budget.left <= 0) return;
    const value = obj[key];
    const leafPath = `${path}.${key}`;
    if (isPlainObject(value) && depth < MAX_METADATA_PATH_DEPTH) {
      writeLeaves(target, leafPath, value, depth + 1, budget);
      continue;
    }
    const attribute = toAttributeValue(value);
    if (attribute === undefined) continue;
    target[leafPath] = attribute;
    budget.left--;
  }
}

/** One metadata value as an attribute value: string, finite number, boolean, or JSON text. */
function toAttributeValue(value: unknown): AttributeValue | undefined {
  switch (typeof value) {
    case "string":
      return capLength(value);
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    default:
      return serializeValue(value);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}
