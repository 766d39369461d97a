// The link from an observation to the prompt it used (`svc.observation.prompt.name` and `.version`), written the same
// way for a prompt given to an observation and for one propagated to the spans of a context.
import type { Attributes } from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A, MAX_NAME_LENGTH, truncateText } from "@svc/core";

/**
 * Writes the link to `prompt` (`{ name, version, isFallback? }`) into `target`: nothing for a fallback prompt, which
 * the server does not hold; else both attributes, from a non-empty name and an integer version (a string of digits
 * is read as one). Returns why nothing was written when `prompt` is not such an object, for the caller to log. A
 * read that throws (a getter, a Proxy) is the caller's to catch.
 */
export function writePromptLink(target: Attributes, prompt: unknown): string | undefined {
  if (prompt === null || typeof prompt !== "object") return "must be { name, version }";
  const { name, version: raw, isFallback } = prompt as { name?: unknown; version?: unknown; isFallback?: unknown };
  if (isFallback) return undefined;
  const version = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof name !== "string" || name.length === 0 || !Number.isInteger(version))
    return "needs a non-empty name and an integer version";
  target[A.OBSERVATION_PROMPT_NAME] = truncateText(name, MAX_NAME_LENGTH);
  target[A.OBSERVATION_PROMPT_VERSION] = version as number;
  return undefined;
}
