/** The parts of a media reference string: `@@@svcMedia:type=<MIME>|id=<mediaId>|source=<source>@@@`. */
export interface MediaReferenceParts {
  /** MIME type of the media, e.g. `image/png`. */
  contentType: string;
  /** Id of the media on the server. */
  mediaId: string;
  /** Where the media came from, e.g. `base64_data_uri` or `bytes`. */
  source: string;
}

const PREFIX = "@@@svcMedia:";
const SUFFIX = "@@@";

/** Finds every media reference string in a text (non-greedy, so adjacent references stay apart). */
export const MEDIA_REFERENCE_PATTERN = /@@@svcMedia:.+?@@@/g;

/** The reference string that stands for uploaded media in exported data. */
export function formatMediaReference({ contentType, mediaId, source }: MediaReferenceParts): string {
  return `${PREFIX}type=${contentType}|id=${mediaId}|source=${source}${SUFFIX}`;
}

/** The parts of a reference string, or why it is not one. Never throws. */
export function parseMediaReference(text: string): MediaReferenceParts | string {
  if (typeof text !== "string") return "not a string";
  if (!text.startsWith(PREFIX) || !text.endsWith(SUFFIX) || text.length < PREFIX.length + SUFFIX.length)
    return `not a media reference string: ${JSON.stringify(text.slice(0, 80))}`;
  const fields = new Map<string, string>();
  for (const pair of text.slice(PREFIX.length, -SUFFIX.length).split("|")) {
    const at = pair.indexOf("=");
    if (at > 0) fields.set(pair.slice(0, at), pair.slice(at + 1));
  }
  const contentType = fields.get("type");
  const mediaId = fields.get("id");
  const source = fields.get("source");
  if (!contentType || !mediaId || !source)
    return `media reference string lacks type, id or source: ${JSON.stringify(text.slice(0, 80))}`;
  return { contentType, mediaId, source };
}
