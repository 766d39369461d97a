import type { Attributes, AttributeValue } from "@opentelemetry/api";
import {
  FAILED_TO_SERIALIZE,
  MAX_SERIALIZED_LENGTH,
  ownKeys,
  readItem as read,
  serializeValue,
  truncateText,
} from "./serialize.js";

/** Path segments of a dotted metadata attribute below its top-level key (`a.b.c.d.e` has four). */
const MAX_METADATA_PATH_DEPTH = 4;
/** Dotted metadata attributes written per metadata value at most (top-level keys are not counted). */
const MAX_METADATA_PATHS = 32;
/** Longest metadata key, in UTF-16 code units; longer keys are cut. */
export const MAX_METADATA_KEY_LENGTH = 200;

/**
 * Writes metadata under `prefix` into `target`: a plain object as one attribute per top-level key (JSON text unless
 * a string, finite number or boolean) and its nested objects again leaf by leaf (`prefix.a.b = 1`, bounded), never
 * over a top-level key of the same name; any other value whole at `prefix`. Never throws.
 */
export function writeMetadata(target: Attributes, prefix: string, metadata: unknown): void {
  if (metadata === undefined || metadata === null) return;
  if (!isPlainObject(metadata)) {
    const text = serializeValue(metadata);
    if (text !== undefined) target[prefix] = text;
    return;
  }
  const keys = ownKeys(metadata);
  if (keys === undefined) {
    target[prefix] = FAILED_TO_SERIALIZE;
    return;
  }
  const paths = metadataPaths(prefix);
  let nested: [string, Record<string, unknown>][] | undefined; // made only when a value has nested keys
  for (const key of keys) {
    const value = read(metadata, key);
    const attribute = toAttributeValue(value);
    if (attribute === undefined) continue;
    const path = metadataKey(paths, prefix, key);
    target[path] = attribute;
    if (typeof attribute === "string" && isPlainObject(value)) {
      nested ??= [];
      nested.push([path, value]);
    }
  }
  if (nested === undefined) return;
  // Written after every top-level key, so that a dotted key given at the top level wins over a derived path.
  const written = new Set<string>(keys.map((key) => metadataKey(paths, prefix, key)));
  const budget = { left: MAX_METADATA_PATHS };
  for (const [path, value] of nested) writeLeaves(target, path, value, 1, budget, written);
}

// Metadata keys repeat from call to call; building and hashing "prefix.key" each time shows up in profiles.
const KEY_CACHE_LIMIT = 1024;
const keyCaches = new Map<string, Map<string, string>>();

/** The cache of "prefix.key" paths of one prefix. */
function metadataPaths(prefix: string): Map<string, string> {
  const cache = keyCaches.get(prefix);
  if (cache !== undefined) return cache;
  const created = new Map<string, string>();
  keyCaches.set(prefix, created);
  return created;
}

function metadataKey(cache: Map<string, string>, prefix: string, key: string): string {
  let path = cache.get(key);
  if (path === undefined) {
    path = `${prefix}.${truncateText(key, MAX_METADATA_KEY_LENGTH)}`;
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
  written: Set<string>,
): void {
  for (const key of ownKeys(obj) ?? []) {
    if (budget.left <= 0) return;
    const value = read(obj, key);
    const leafPath = `${path}.${truncateText(key, MAX_METADATA_KEY_LENGTH)}`;
    if (isPlainObject(value) && depth < MAX_METADATA_PATH_DEPTH) {
      writeLeaves(target, leafPath, value, depth + 1, budget, written);
      continue;
    }
    const attribute = toAttributeValue(value);
    if (attribute === undefined || written.has(leafPath)) continue;
    target[leafPath] = attribute;
    written.add(leafPath);
    budget.left--;
  }
}

/** One metadata value as an attribute value: string, finite number, boolean, or JSON text. */
function toAttributeValue(value: unknown): AttributeValue | undefined {
  switch (typeof value) {
    case "string":
      return truncateText(value, MAX_SERIALIZED_LENGTH);
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

/** Whether `value` is a plain object (`{}` or `Object.create(null)`); never throws, a Proxy that does counts as not. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}
