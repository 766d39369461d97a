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
  #hash: Promise<{ sha256Hash: string; mediaId: string }> | undefined;

  /** @throws {@link TypeError} when the data URI is not a base64 data URI with a content type. */
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
    return `data:${this.contentType};base64,${bytesToBase64(this.contentBytes)}`;
  }

  /** Serialises to the data URI. */
  toJSON(): string {
    return this.toDataUri();
  }

  /** SHA-256 of the content (standard base64) and the media id the server derives from it. */
  hash(): Promise<{ sha256Hash: string; mediaId: string }> {
    this.#hash ??= crypto.subtle.digest("SHA-256", this.contentBytes as Uint8Array<ArrayBuffer>).then((digest) => {
      const sha256Hash = bytesToBase64(new Uint8Array(digest));
      const mediaId = sha256Hash.replace(/\+/g, "-").replace(/\//g, "_").slice(0, 22);
      return { sha256Hash, mediaId };
    });
    return this.#hash;
  }

  /** The reference string that stands for this media once uploaded. */
  async getReference(): Promise<SvcMediaReference> {
    const { mediaId } = await this.hash();
    return new SvcMediaReference({ contentType: this.contentType, mediaId, source: this.source });
  }
}

function parseBase64DataUri(uri: string): { contentType: string; bytes: Uint8Array } {
  const comma = typeof uri === "string" ? uri.indexOf(",") : -1;
  const header = comma > 5 && uri.startsWith("data:") ? uri.slice(5, comma).split(";") : [];
  const contentType = header[0] ?? "";
  if (!contentType || !header.includes("base64")) {
    throw new TypeError("SvcMedia: base64DataUri must look like data:<content type>;base64,<content>");
  }
  try {
    return { contentType, bytes: base64ToBytes(uri.slice(comma + 1)) };
  } catch {
    throw new TypeError("SvcMedia: the content of base64DataUri is not valid base64");
  }
}

/** Standard base64 of bytes, without Node-only APIs. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
