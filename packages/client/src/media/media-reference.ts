import { downloadMedia, toBase64 } from "@svc/core";

/** What a {@link SvcMediaReference} holds: the media record the server resolved a reference string to. */
export interface SvcMediaReferenceParams {
  /** Id of the media on the server. */
  mediaId: string;
  /** MIME type of the media, e.g. `image/png`. */
  contentType: string;
  /** Signed download URL of the content. */
  url: string;
  /** When `url` stops working (ISO 8601). */
  urlExpiry?: string;
  /** Size of the content in bytes. */
  contentLength?: number;
  /** The reference string the media stands for in stored data: `@@@svcMedia:type=...|id=...|source=...@@@`. */
  referenceString: string;
}

/** Time one download attempt of {@link SvcMediaReference} may take. */
const MEDIA_FETCH_TIMEOUT_MS = 60_000;
/** Largest content {@link SvcMediaReference} downloads: the server's media size limit. */
const MEDIA_FETCH_MAX_BYTES = 1_000_000_000;

/**
 * Media stored on the server, as in the items `svc.dataset.get` returns: id, content type and a signed, short-lived
 * URL. It serialises to its reference string, so an item read this way can be stored or traced again.
 * @example
 * const image = item.input.image as SvcMediaReference;
 * const dataUri = await image.fetchDataUri(); // data:image/png;base64,...
 */
export class SvcMediaReference {
  /** Id of the media on the server. */
  readonly mediaId: string;
  /** MIME type of the media. */
  readonly contentType: string;
  /** Signed download URL of the content; see {@link SvcMediaReference.isUrlExpired}. */
  readonly url: string;
  /** When `url` stops working (ISO 8601), if known. */
  readonly urlExpiry?: string;
  /** Size of the content in bytes, if known. */
  readonly contentLength?: number;
  /** The reference string the media stands for in stored data. */
  readonly referenceString: string;

  constructor(params: SvcMediaReferenceParams) {
    this.mediaId = params.mediaId;
    this.contentType = params.contentType;
    this.url = params.url;
    if (params.urlExpiry !== undefined) this.urlExpiry = params.urlExpiry;
    if (params.contentLength !== undefined) this.contentLength = params.contentLength;
    this.referenceString = params.referenceString;
  }

  /** The reference string. */
  toJSON(): string {
    return this.referenceString;
  }

  /** The reference string. */
  toString(): string {
    return this.referenceString;
  }

  /**
   * Whether the download URL has expired, or will within `thresholdSeconds`. False when the expiry is unknown.
   * Read the dataset again for a fresh URL.
   */
  isUrlExpired(thresholdSeconds = 60): boolean {
    const expiry = this.urlExpiry === undefined ? Number.NaN : Date.parse(this.urlExpiry);
    if (Number.isNaN(expiry)) return false;
    return expiry - Date.now() <= thresholdSeconds * 1000;
  }

  /** Downloads the content. @throws Error when the download fails or answers other than 2xx. */
  async fetchBytes(): Promise<Uint8Array> {
    const result = await downloadMedia(this.url, {
      timeoutMs: MEDIA_FETCH_TIMEOUT_MS,
      maxBytes: MEDIA_FETCH_MAX_BYTES,
    });
    if (!result.ok) throw new Error(`SvcMediaReference: fetching media ${this.mediaId} failed: ${result.reason}`);
    return result.bytes;
  }

  /** Downloads the content as base64 (no `data:` prefix). @throws Error when the download fails. */
  async fetchBase64(): Promise<string> {
    return toBase64(await this.fetchBytes());
  }

  /** Downloads the content as a `data:<contentType>;base64,...` URI. @throws Error when the download fails. */
  async fetchDataUri(): Promise<string> {
    return `data:${this.contentType};base64,${await this.fetchBase64()}`;
  }
}
