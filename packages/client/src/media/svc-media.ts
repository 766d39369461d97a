import { type MediaHash, mediaHash, parseDataUri, toBase64 } from "@svc/core";
import { SvcMediaReference } from "./media-reference.js";

/** Where the content of a {@link SvcMedia} comes from. */
export type SvcMediaParams =
  | {
      /** A `data:<type>;base64,<content>` URI. */
      base64DataUri: string;
    }
  | {
      /** The raw content. */
      contentBytes: Uint8Array;
      /** MIME type of the content, e.g. `image/png`. */
      contentType: string;
    };

/**
 * A media file (image, audio, document) to store on the server. Placed in a dataset item's `input`,
 * `expectedOutput` or `metadata`, it is uploaded by `svc.dataset.createItem` and replaced by its reference string.
 */
export class SvcMedia {
  /** MIME type of the content. */
  readonly contentType: string;
  /** The content. */
  readonly contentBytes: Uint8Array;
  /** How the media was given: `base64_data_uri` or `bytes`. */
  readonly source: "base64_data_uri" | "bytes";
  #hash: Promise<MediaHash> | undefined;

  /** @throws {@link !TypeError} when the data URI is not a base64 data URI with a content type. */
  constructor(params: SvcMediaParams) {
    if ("base64DataUri" in params) {
      const parsed = parseBase64DataUri(params.base64DataUri);
      this.contentType = parsed.contentType;
      this.contentBytes = parsed.bytes;
      this.source = "base64_data_uri";
    } else {
      if (!(params.contentBytes instanceof Uint8Array) || !params.contentType) {
        throw new TypeError("SvcMedia: pass contentBytes (a Uint8Array) and contentType, or base64DataUri");
      }
      this.contentType = params.contentType;
      this.contentBytes = params.contentBytes;
      this.source = "bytes";
    }
  }

  /** Size of the content in bytes. */
  get contentLength(): number {
    return this.contentBytes.byteLength;
  }

  /** The content as a `data:<type>;base64,...` URI. */
  toDataUri(): string {
    return `data:${this.contentType};base64,${toBase64(this.contentBytes)}`;
  }

  /** Serialises to the data URI. */
  toJSON(): string {
    return this.toDataUri();
  }

  /** SHA-256 of the content (standard base64) and the media id the server derives from it. */
  hash(): Promise<MediaHash> {
    this.#hash ??= mediaHash(this.contentBytes);
    return this.#hash;
  }

  /** The reference string that stands for this media once uploaded. */
  async getReference(): Promise<SvcMediaReference> {
    const { mediaId } = await this.hash();
    return new SvcMediaReference({ contentType: this.contentType, mediaId, source: this.source });
  }
}

function parseBase64DataUri(uri: string): { contentType: string; bytes: Uint8Array } {
  const parsed = parseDataUri(uri);
  if (typeof parsed === "string") throw new TypeError(`SvcMedia: base64DataUri: ${parsed}`);
  return parsed;
}
