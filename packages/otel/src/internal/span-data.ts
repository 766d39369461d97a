import type { Attributes, AttributeValue } from "@opentelemetry/api";
import type { MaskFunction } from "../config.js";
import type { MediaCandidate } from "../media/span-media.js";

/** Attribute key prefixes that hold input, output and metadata (including per-key metadata). */
export const DATA_KEY_PREFIXES = [
  "svc.observation.input",
  "svc.observation.output",
  "svc.observation.metadata",
  "svc.trace.input",
  "svc.trace.output",
  "svc.trace.metadata",
] as const;

/** Exported in place of a value whose mask function threw or returned something that cannot be serialized. */
export const MASK_FAILED_MARKER = "<fully masked due to failed mask function>";

function isDataKey(key: string): boolean {
  if (!key.startsWith("svc.")) return false;
  for (const prefix of DATA_KEY_PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}

/** The attributes to export (a copy only when masking changed them) and the values that may carry media. */
export interface PreparedData {
  attributes: Attributes;
  media: MediaCandidate[] | undefined;
}

/**
 * Text that every base64 data URI contains. `;` is rare in prose and JSON, so testing for it skips
 * most values far faster than looking for `data:`.
 */
const BASE64_MARKER = ";base64,";

/** Applies the mask to input, output and metadata attributes and finds values with data URIs. */
export function prepareSpanData(
  source: Attributes,
  mask: MaskFunction | undefined,
  scanMedia: boolean,
  onMaskError: (key: string, error: unknown) => void,
): PreparedData {
  if (!mask) return { attributes: source, media: scanMedia ? findMediaCandidates(source) : undefined };
  let attributes = source;
  let media: MediaCandidate[] | undefined;
  for (const key in source) {
    if (!isDataKey(key)) continue;
    const value = applyMask(mask, key, source[key], onMaskError);
    if (attributes === source) attributes = { ...source };
    if (value === undefined) delete attributes[key];
    else attributes[key] = value;
    if (scanMedia && typeof value === "string" && value.includes(BASE64_MARKER)) {
      media ??= [];
      media.push({ key, value });
    }
  }
  return { attributes, media };
}

/** Input, output and metadata values that may hold a base64 data URI; the cheap test on the value goes first. */
function findMediaCandidates(source: Attributes): MediaCandidate[] | undefined {
  let media: MediaCandidate[] | undefined;
  for (const key in source) {
    const value = source[key];
    if (typeof value !== "string" || !value.includes(BASE64_MARKER) || !isDataKey(key)) continue;
    media ??= [];
    media.push({ key, value });
  }
  return media;
}

function applyMask(
  mask: MaskFunction,
  key: string,
  value: AttributeValue | undefined,
  onError: (key: string, error: unknown) => void,
): AttributeValue | undefined {
  let masked: unknown;
  try {
    masked = mask({ data: value });
  } catch (error) {
    onError(key, error);
    return MASK_FAILED_MARKER;
  }
  if (masked === undefined || masked === null) return undefined;
  if (typeof masked === "string" || typeof masked === "number" || typeof masked === "boolean") return masked;
  try {
    return JSON.stringify(masked);
  } catch (error) {
    onError(key, new Error("it returned a value that cannot be serialized to JSON", { cause: error }));
    return MASK_FAILED_MARKER;
  }
}
