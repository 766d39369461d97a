import type { Attributes } from "@opentelemetry/api";
import { findDataUris, mediaHash, mediaReference, parseDataUri } from "./data-uri.js";
import type { MediaUpload } from "./media-upload.js";

/** The attribute values (input, output, metadata) that may carry media. */
export interface MediaCandidate {
  key: string;
  value: string;
}

function fieldOf(key: string): MediaUpload["field"] {
  if (key.includes("input")) return "input";
  if (key.includes("output")) return "output";
  return "metadata";
}

/**
 * Replaces every base64 data URI in the candidate values with a media reference, writing into
 * `attributes` (a copy the caller owns), and hands each distinct piece of media to `upload`.
 */
export async function replaceMedia(
  attributes: Attributes,
  candidates: readonly MediaCandidate[],
  ids: { traceId: string; observationId: string },
  upload: (media: MediaUpload) => void,
): Promise<void> {
  for (const { key, value } of candidates) {
    let next = value;
    for (const uri of findDataUris(value)) {
      const parsed = parseDataUri(uri);
      if (!parsed) continue;
      const { sha256Hash, mediaId } = await mediaHash(parsed.bytes);
      next = next.replaceAll(uri, mediaReference(parsed.contentType, mediaId));
      upload({
        ...ids,
        mediaId,
        sha256Hash,
        contentType: parsed.contentType,
        bytes: parsed.bytes,
        field: fieldOf(key),
      });
    }
    attributes[key] = next;
  }
}
