import { fromBase64 } from "../transport/identity.js";

const DATA_URI = /data:[^;,\s"'\\]+(?:;[^;,\s"'\\]+)*;base64,[A-Za-z0-9+/]+={0,2}/g;

/** Text every base64 data URI contains; `;` is rare in prose and JSON, so testing for it skips most values fast. */
export const BASE64_MARKER = ";base64,";

/** The distinct base64 data URIs in a text, in order of first appearance. */
export function findDataUris(text: string): string[] {
  return [...new Set(text.match(DATA_URI) ?? [])];
}

/** Decodes a base64 data URI; or why it is not one (no content type, not base64, empty). Never throws. */
export function parseDataUri(uri: string): { contentType: string; bytes: Uint8Array } | string {
  const comma = typeof uri === "string" ? uri.indexOf(",") : -1;
  if (comma < 0 || !uri.startsWith("data:")) return "not a data URI (expected data:<content type>;base64,<content>)";
  const parts = uri.slice(5, comma).split(";");
  const contentType = parts[0]?.trim() ?? "";
  if (!contentType) return "the data URI has no content type";
  if (!parts.includes("base64")) return "the data URI is not base64";
  const body = uri.slice(comma + 1);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return "the content of the data URI is not valid base64";
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(body);
  } catch {
    return "the content of the data URI is not valid base64";
  }
  return bytes.length > 0 ? { contentType, bytes } : "the data URI is empty";
}
