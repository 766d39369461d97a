import { formatMediaReference, type MediaReferenceParts, parseMediaReference } from "@svc/core";

/** The parts of a media reference string. */
export type SvcMediaReferenceParams = MediaReferenceParts;

/** A parsed media reference string: `@@@svcMedia:type=<MIME>|id=<mediaId>|source=<source>@@@`. */
export class SvcMediaReference {
  /** MIME type of the media. */
  readonly contentType: string;
  /** Id of the media on the server. */
  readonly mediaId: string;
  /** Where the media came from. */
  readonly source: string;

  constructor(params: SvcMediaReferenceParams) {
    this.contentType = params.contentType;
    this.mediaId = params.mediaId;
    this.source = params.source;
  }

  /**
   * Parses a reference string.
   * @throws {@link !TypeError} when the text is not a reference string or lacks `type`, `id` or `source`.
   */
  static parse(text: string): SvcMediaReference {
    const parts = parseMediaReference(text);
    if (typeof parts === "string") throw new TypeError(parts);
    return new SvcMediaReference(parts);
  }

  /** The reference string. */
  toString(): string {
    return formatMediaReference(this);
  }

  /** Serialises to the reference string. */
  toJSON(): string {
    return this.toString();
  }
}
