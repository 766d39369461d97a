import { getGlobalLogger } from "@svc/core";
import type { DatasetItem } from "../api/generated/types.js";
import { SvcMediaReference } from "../media/media-reference.js";

const FIELDS = new Set(["input", "expectedOutput", "metadata"]);

/**
 * The segments of a JSON path in the server's normalized bracket form: `$`, then `['<key>']` (a key, unescaped:
 * it ends at the first `']`) or `[<index>]`. `[]` for `$` itself; undefined when the text is not of that form.
 */
function parseJsonPath(path: string): (string | number)[] | undefined {
  if (typeof path !== "string" || !path.startsWith("$")) return undefined;
  const segments: (string | number)[] = [];
  let at = 1;
  while (at < path.length) {
    if (path[at] !== "[") return undefined;
    if (path[at + 1] === "'") {
      const end = path.indexOf("']", at + 2);
      if (end < 0) return undefined;
      segments.push(path.slice(at + 2, end));
      at = end + 2;
    } else {
      const index = /^\[(\d+)\]/.exec(path.slice(at));
      if (!index) return undefined;
      segments.push(Number(index[1]));
      at += index[0].length;
    }
  }
  return segments;
}

/**
 * Replaces, in each item's `input`, `expectedOutput` and `metadata`, the reference strings the server lists in
 * `mediaReferences` by {@link SvcMediaReference} objects (in place). A reference whose path cannot be parsed or
 * does not lead to that reference string is left as it is; those are counted in one warning.
 */
export function resolveItemMediaReferences(items: readonly DatasetItem[]): void {
  let left = 0;
  let firstProblem = "";
  for (const item of items) {
    const references: unknown = (item as { mediaReferences?: unknown }).mediaReferences;
    if (!Array.isArray(references)) continue;
    for (const reference of references) {
      const problem = place(item as unknown as Record<string, unknown>, reference);
      if (problem === undefined) continue;
      left++;
      firstProblem ||= `item ${item.id}: ${problem}`;
    }
  }
  if (left > 0)
    getGlobalLogger().warn(
      `DatasetManager.get: ${left} media reference(s) left as reference strings; the first: ${firstProblem}`,
    );
}

/** Puts one media reference in place; returns why it could not, or undefined. */
function place(item: Record<string, unknown>, reference: unknown): string | undefined {
  if (!isRecord(reference)) return "a media reference that is not an object";
  const { field, jsonPath, referenceString, media } = reference;
  // A reference the server could not resolve to a stored media record stays a string, as stored.
  if (!isRecord(media)) return undefined;
  if (typeof field !== "string" || !FIELDS.has(field)) return `unknown field ${JSON.stringify(String(field))}`;
  const where = `${field} ${JSON.stringify(String(jsonPath).slice(0, 200))}`;
  const path = parseJsonPath(jsonPath as string);
  if (path === undefined) return `the path ${where} cannot be parsed`;
  if (typeof referenceString !== "string" || typeof media.mediaId !== "string" || typeof media.url !== "string")
    return `the reference at ${where} lacks its reference string, media id or URL`;
  const resolved = new SvcMediaReference({
    mediaId: media.mediaId,
    contentType: String(media.contentType),
    url: media.url,
    ...(typeof media.urlExpiry === "string" ? { urlExpiry: media.urlExpiry } : {}),
    ...(typeof media.contentLength === "number" ? { contentLength: media.contentLength } : {}),
    referenceString,
  });
  let parent: unknown = item;
  let key: string | number = field;
  for (const segment of path) {
    parent = childOf(parent, key);
    key = segment;
    if (parent === undefined) return `the path ${where} leads nowhere`;
  }
  const current = childOf(parent, key);
  if (current !== referenceString) {
    // A reference inside a longer text stays in that text (resolve it with svc.media.resolveReferences).
    if (typeof current === "string" && current.includes(referenceString)) return undefined;
    return `the value at ${where} is not the reference string`;
  }
  // Defined rather than assigned, so that a key such as "__proto__" stays a plain key.
  Object.defineProperty(parent, key, { value: resolved, writable: true, enumerable: true, configurable: true });
  return undefined;
}

/** The value under `key`: an index of an array, or an own key of an object; undefined otherwise. */
function childOf(parent: unknown, key: string | number): unknown {
  if (typeof key === "number") return Array.isArray(parent) ? parent[key] : undefined;
  if (!isRecord(parent) || Array.isArray(parent) || !Object.hasOwn(parent, key)) return undefined;
  return parent[key];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
