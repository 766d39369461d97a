import { formatMediaReference, getGlobalLogger, type MediaHash, mediaHash, parseDataUri, toBase64 } from "@svc/core";
import type { MediaContentType } from "../api/generated/types.js";
import { MediaContentTypeValues } from "../api/generated/values.js";

/**
 * Set to `true` on every {@link SvcMedia} (an own property, not enumerable), under a key every copy of the SDK shares:
 * the dataset manager tells media apart by it, whichever copy made them.
 */
export const SVC_MEDIA: unique symbol = Symbol.for("svc.media");

/** Where the content of a {@link SvcMedia} comes from; `source` may be left out. */
export type SvcMediaParams =
  | {
      source?: "base64_data_uri";
      /** A `data:<type>;base64,<content>` URI. */
      base64DataUri: string;
    }
  | {
      source?: "bytes";
      /** The raw content. */
      contentBytes: Uint8Array;
      /** MIME type of the content, one the server stores (see {@link MediaContentType}), e.g. `image/png`. */
      contentType: MediaContentType;
    };

type Content = { contentType: MediaContentType; bytes: Uint8Array };

/**
 * A media file to store on the server: in a dataset item, `svc.dataset.createItem` uploads it and stores its reference
 * string; in traced data it serialises to its data URI, which the span processor uploads. The constructor never
 * throws: invalid input is logged, and the object then has no content and uploads nothing (`getTag()` gives `null`).
 */
export class SvcMedia {
  /** MIME type of the content; undefined when the input was invalid. */
  readonly contentType: MediaContentType | undefined;
  /** The content; undefined when the input was invalid. */
  readonly contentBytes: Uint8Array | undefined;
  /** How the media was given. */
  readonly source: "base64_data_uri" | "bytes";
  #hash: Promise<MediaHash | undefined> | undefined;

  constructor(params: SvcMediaParams) {
    Object.defineProperty(this, SVC_MEDIA, { value: true });
    // Any object is read for its fields, arrays too (unlike the core's isObject): contentOf reports what is missing.
    const fields = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : undefined;
    const fromBytes = !!fields && (fields.source === "bytes" || (!fields.source && !("base64DataUri" in fields)));
    this.source = fromBytes ? "bytes" : "base64_data_uri";
    const content = contentOf(fields, fromBytes);
    const valid = typeof content === "string" ? undefined : content;
    if (!valid) getGlobalLogger().warn(`SvcMedia: invalid media, nothing will be uploaded: ${content}`);
    this.contentType = valid?.contentType;
    this.contentBytes = valid?.bytes;
  }

  /** Size of the content in bytes; undefined when the input was invalid. */
  get contentLength(): number | undefined {
    return this.contentBytes?.byteLength;
  }

  /** The content as a `data:<type>;base64,...` URI; null when the input was invalid. */
  get base64DataUri(): string | null {
    if (!this.contentBytes || !this.contentType) return null;
    return `data:${this.contentType};base64,${toBase64(this.contentBytes)}`;
  }

  /** Serialises to the data URI (null when the input was invalid). */
  toJSON(): string | null {
    return this.base64DataUri;
  }

  /** SHA-256 of the content, standard base64; undefined when the input was invalid. */
  async getSha256Hash(): Promise<string | undefined> {
    return (await this.#hashed())?.sha256Hash;
  }

  /** The id the server gives this media (derived from the content's SHA-256); null when the input was invalid. */
  async getId(): Promise<string | null> {
    return (await this.#hashed())?.mediaId ?? null;
  }

  /**
   * The reference string that stands for this media once uploaded,
   * `@@@svcMedia:type=<MIME>|id=<mediaId>|source=<source>@@@`; null when the input was invalid.
   */
  async getTag(): Promise<string | null> {
    const mediaId = await this.getId();
    if (mediaId === null || !this.contentType) return null;
    return formatMediaReference({ contentType: this.contentType, mediaId, source: this.source });
  }

  #hashed(): Promise<MediaHash | undefined> {
    const bytes = this.contentBytes;
    this.#hash ??= bytes ? mediaHash(bytes) : Promise.resolve(undefined);
    return this.#hash;
  }
}

function contentOf(params: Record<string, unknown> | undefined, fromBytes: boolean): Content | string {
  if (!params) return "pass { base64DataUri } or { contentBytes, contentType }";
  if (params.source !== undefined && params.source !== "bytes" && params.source !== "base64_data_uri")
    return `unknown source ${JSON.stringify(String(params.source))} (expected "base64_data_uri" or "bytes")`;
  if (!fromBytes) {
    const uri = params.base64DataUri;
    if (typeof uri !== "string") return "base64DataUri must be a string";
    const parsed = parseDataUri(uri);
    if (typeof parsed === "string") return `base64DataUri: ${parsed}`;
    return withKnownType(parsed.contentType, parsed.bytes);
  }
  if (!(params.contentBytes instanceof Uint8Array)) return "contentBytes must be a Uint8Array";
  if (typeof params.contentType !== "string") return "contentType must be a string";
  return withKnownType(params.contentType, params.contentBytes);
}

function withKnownType(contentType: string, bytes: Uint8Array): Content | string {
  const normalized = contentType.trim().toLowerCase() as MediaContentType;
  if (!MediaContentTypeValues.has(normalized))
    return `content type ${JSON.stringify(contentType.slice(0, 80))} is not one the server stores media of`;
  return { contentType: normalized, bytes };
}
