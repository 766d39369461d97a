import { HttpError } from "./http.ts";

/** A sort key: compared element by element. */
export type SortKey = (string | number)[];

/** Newest first, ties broken by id: the order of every cursor-paged list. */
export function newestFirst(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    if (x === y) continue;
    // The first element (a timestamp) sorts descending, the rest ascending.
    const order = x < y ? -1 : 1;
    return i === 0 ? -order : order;
  }
  return 0;
}

function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify({ v: 1, k: key })).toString("base64url");
}

function decodeCursor(cursor: string): SortKey {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; k?: unknown };
    if (parsed.v === 1 && Array.isArray(parsed.k)) return parsed.k as SortKey;
  } catch {
    // reported below
  }
  throw new HttpError(400, `Invalid cursor "${cursor}": pass the meta.cursor of the previous page unchanged`);
}

/**
 * One page of a list in `newestFirst` order, after the item the cursor names. The cursor holds the sort key of
 * the last item returned, so items added or deleted between pages neither repeat nor go missing.
 */
export function cursorPage<T>(
  items: T[],
  keyOf: (item: T) => SortKey,
  cursor: string | undefined,
  limit: number,
): { data: T[]; cursor: string | undefined } {
  const sorted = [...items].sort((a, b) => newestFirst(keyOf(a), keyOf(b)));
  const after = cursor ? decodeCursor(cursor) : undefined;
  const start = after ? sorted.findIndex((item) => newestFirst(keyOf(item), after) > 0) : 0;
  const data = start < 0 ? [] : sorted.slice(start, start + limit);
  const last = data.at(-1);
  const hasMore = start >= 0 && start + limit < sorted.length;
  return { data, cursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : undefined };
}

/** One page of a page-numbered list (pages count from 1) with the `meta` the server sends. */
export function numberedPage<T>(items: T[], page: number, limit: number) {
  const totalItems = items.length;
  return {
    data: items.slice((page - 1) * limit, page * limit),
    meta: { page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) },
  };
}

/** A positive integer query parameter, with a default and a maximum; anything else is a 400. */
export function intParam(query: URLSearchParams, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER) {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new HttpError(400, `Query parameter ${name} must be an integer from 1 to ${max}, got "${raw}"`);
  }
  return value;
}

/** A date-time query parameter as epoch milliseconds; a value that is not a date is a 400. */
export function timeParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new HttpError(400, `Query parameter ${name} must be an ISO 8601 date-time, got "${raw}"`);
  return ms;
}

/** Comma-separated field groups; unknown names are a 400. */
export function fieldGroups(query: URLSearchParams, known: string[], fallback: string[]): string[] {
  const raw = query.get("fields");
  if (raw === null || raw.trim() === "") return fallback;
  const groups = raw
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
  const unknown = groups.filter((g) => !known.includes(g));
  if (unknown.length) {
    throw new HttpError(400, `Unknown field group(s) ${unknown.join(", ")} in fields; allowed: ${known.join(", ")}`);
  }
  return groups;
}

/** Comma-separated list parameter, or undefined when absent. */
export function listParam(query: URLSearchParams, name: string): string[] | undefined {
  const values = query
    .getAll(name)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  return values.length ? values : undefined;
}
