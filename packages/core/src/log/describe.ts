import { redactSecrets } from "./secrets.js";

/** Longest description written for one error, so a huge message or body never floods a log line. */
const MAX_DESCRIPTION = 500;
/** Causes followed at most, for errors that wrap errors. */
const MAX_CAUSES = 3;

/**
 * One line for a thrown value: name and message, a system error's code and address (`ECONNREFUSED 127.0.0.1:4000`),
 * its causes; secrets redacted, capped, never an object's properties. Never throws.
 */
export function describeError(error: unknown): string {
  let text: string;
  try {
    text = describeOne(error, 0);
  } catch {
    text = "an error that cannot be described";
  }
  text = redactSecrets(text);
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text;
}

function describeOne(error: unknown, depth: number): string {
  if (!(error instanceof Error)) return describeValue(error);
  // A plain Error says nothing beyond its message; other names (TypeError, AbortError...) do.
  const base = !error.message ? error.name : error.name === "Error" ? error.message : `${error.name}: ${error.message}`;
  const system = systemDetail(error);
  let text = system && !base.includes(system) ? `${base} (${system})` : base;
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined && depth < MAX_CAUSES) text += `; caused by ${describeOne(cause, depth + 1)}`;
  return text;
}

/** `ECONNREFUSED 127.0.0.1:4000` from the fields Node sets on system errors. */
function systemDetail(
  error: Error & { code?: unknown; hostname?: unknown; address?: unknown; port?: unknown },
): string {
  const code = typeof error.code === "string" ? error.code : "";
  const host =
    typeof error.hostname === "string" ? error.hostname : typeof error.address === "string" ? error.address : "";
  const where = host && typeof error.port === "number" ? `${host}:${error.port}` : host;
  return [code, where].filter(Boolean).join(" ");
}

function describeValue(value: unknown): string {
  if (typeof value === "function") return `a function${value.name ? ` (${value.name})` : ""}`;
  if (typeof value !== "object" || value === null) return String(value);
  const name = constructorName(value as object);
  const message = (value as { message?: unknown }).message;
  if (typeof message === "string") return `${name}: ${message}`;
  return `a value of type ${name}`;
}

function constructorName(value: object): string {
  try {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === "string" && name !== "" ? name : "Object";
  } catch {
    return "Object";
  }
}

/** A thrown value's message as an observation records it: an error's message (else its name), else the value as text. */
export function messageOf(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? error.message || error.name : describeValue(error);
  } catch {
    text = "an error that cannot be described";
  }
  return redactSecrets(text);
}

/** `String(value)` that never throws (a value whose `toString` throws reads as a short marker). */
export function textOf(value: unknown): string {
  try {
    return redactSecrets(String(value));
  } catch {
    return "an unprintable value";
  }
}

/** `1 score`, `2 scores`: a count with the plural noun given, in the singular (the noun without its final `s`) for one. */
export function counted(count: number, plural: string): string {
  return `${count} ${count === 1 ? plural.replace(/s$/, "") : plural}`;
}
