import { stableText, toHex } from "@svc/core";

/**
 * Creates a W3C trace id (32 lower-case hex characters).
 * With a non-empty seed, the id is the first 32 hex characters of the seed's SHA-256, so the same seed
 * always gives the same id (useful to link a trace to an id of your own); without one, or with `""`, it is random.
 * A seed that is not a string is read as text. Never rejects.
 */
export async function createTraceId(seed?: string): Promise<string> {
  if (seed === undefined || seed === null || seed === "") {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return toHex(bytes);
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(stableText(seed)));
  return toHex(new Uint8Array(digest)).slice(0, 32);
}
