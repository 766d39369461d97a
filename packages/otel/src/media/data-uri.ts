import { toBase64 } from "../internal/base64.js";

/** A base64 data URI found in an attribute value, decoded. */
export interface ParsedDataUri {
  /** The data URI text as it appeared. */
  uri: string;
  contentType: string;
  bytes: Uint8Array;
}

const DATA_URI = /data:[^;,\s"'\\]+(?:;[^;,\s"'\\]+)*;base64,[A-Za-z0-9+/]+={0,2}/g;

/** The distinct base64 data URIs in a text, in order of first appearance. */
export function findDataUris(text: string): string[] {
  return [...new Set(text.match(DATA_URI) ?? [])];
}

/** Decodes a base64 data URI; undefined when it has no content type or is not base64. */
export function parseDataUri(uri: string): ParsedDataUri | undefined {
  const comma = uri.indexOf(",");
  if (!uri.startsWith("data:") || comma < 0) return undefined;
  const parts = uri.slice(5, comma).split(";");
  const contentType = parts[0]?.trim() ?? "";
  if (!contentType || !parts.includes("base64")) return undefined;
  const bytes = decodeBase64(uri.slice(comma + 1));
  return bytes.length > 0 ? { uri, contentType, bytes } : undefined;
}

function decodeBase64(text: string): Uint8Array {
  if (typeof Buffer !== "undefined") return new Uint8Array(Buffer.from(text, "base64"));
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** SHA-256 of the bytes as standard base64, and the media id derived from it. */
export async function mediaHash(bytes: Uint8Array): Promise<{ sha256Hash: string; mediaId: string }> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  const sha256Hash = toBase64(digest);
  const mediaId = sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22);
  return { sha256Hash, mediaId };
}

/** The string that stands in for uploaded media in exported data. */
export function mediaReference(contentType: string, mediaId: string): string {
  return `@@@svcMedia:type=${contentType}|id=${mediaId}|source=base64_data_uri@@@`;
}
