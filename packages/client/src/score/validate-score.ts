// Shared by the server client and the browser client: no Node-only imports here.

/** Why a score cannot be sent, or undefined when it can. Never throws, whatever it is given. */
export function invalidScoreReason(score: unknown): string | undefined {
  if (typeof score !== "object" || score === null || Array.isArray(score)) return "a score must be an object";
  const { name, value } = score as { name?: unknown; value?: unknown };
  if (typeof name !== "string" || name.trim() === "") return "name must be a non-empty string";
  if (typeof value === "string") return undefined;
  if (typeof value === "number" && Number.isFinite(value)) return undefined;
  return `value must be a finite number or a string (name=${JSON.stringify(name)})`;
}

/**
 * Copies a score into plain JSON (so later changes by the caller do not reach the wire), or returns the
 * reason it cannot be copied: a cycle, a BigInt, a throwing getter.
 */
export function snapshotScore<T>(score: T): { ok: true; value: T } | { ok: false; reason: string } {
  try {
    const text = JSON.stringify(score);
    if (text === undefined) return { ok: false, reason: "the score is not JSON-serializable" };
    return { ok: true, value: JSON.parse(text) as T };
  } catch (error) {
    return { ok: false, reason: `the score is not JSON-serializable: ${describe(error)}` };
  }
}

/** A short description of a thrown value, for log lines. */
export function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "unprintable error";
  }
}
