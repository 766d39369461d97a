import { toBase64 } from "../transport/identity.js";

/** SHA-256 of media content (standard base64) and the media id the server derives from it. */
export interface MediaHash {
  sha256Hash: string;
  mediaId: string;
}

/** Hashes media content: the id is the first 22 characters of the hash in URL-safe base64, as the server makes it. */
export async function mediaHash(bytes: Uint8Array): Promise<MediaHash> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  const sha256Hash = toBase64(digest);
  return { sha256Hash, mediaId: mediaIdOf(sha256Hash) };
}

/** The media id the server derives from a SHA-256 hash in standard base64. */
export function mediaIdOf(sha256Hash: string): string {
  return sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22);
}
