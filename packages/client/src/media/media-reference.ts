const PREFIX = "@@@svcMedia:";
const SUFFIX = "@@@";

/** Finds every media reference string in a text (non-greedy, so adjacent references stay apart). */
export const MEDIA_REFERENCE_PATTERN = /@@@svcMedia:.+?@@@/g;

/** The parts of a media reference string. */
export interface SvcMediaReferenceParams {
  /** MIME type of the media, e.g. `image/png`. */
  contentType: string;
  /** Id of the media on the server. */
  mediaId: string;
  /** Where the media came from, e.g. `base64_data_uri` or `bytes`. */
  source: string;
}

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
   * @throws {@link TypeError} when the text is not a reference string or lacks `type`, `id` or `source`.
   */
  static parse(text: string): SvcMediaReference {
    if (!text.startsWith(PREFIX) || !text.endsWith(SUFFIX) || text.length < PREFIX.length + SUFFIX.length) {
      throw new TypeError(`not a media reference string: ${JSON.stringify(text.slice(0, 80))}`);
    }
    const fields = new Map<string, string>();
    for (const pair of text.slice(PREFIX.length, -SUFFIX.length).split("|")) {
      const at = pair.indexOf("=");
      if (at > 0) fields.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const contentType = fields.get("type");
    const mediaId = fields.get("id");
    const source = fields.get("source");
    if (!contentType || !mediaId || !source) {
      throw new TypeError(`media reference string lacks type, id or source: ${JSON.stringify(text.slice(0, 80))}`);
    }
    return new SvcMediaReference({ contentType, mediaId, source });
  }

  /** The reference string. */
  toString(): string {
    return `${PREFIX}type=${this.contentType}|id=${this.mediaId}|source=${this.source}${SUFFIX}`;
  }

  /** Serialises to the reference string. */
  toJSON(): string {
    return this.toString();
  }
}
