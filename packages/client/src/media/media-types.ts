import type { Backend, MediaReferenceParts } from "@svc/core";

/** The parts of a media reference string `@@@svcMedia:type=<MIME>|id=<mediaId>|source=<source>@@@`. */
export type ParsedMediaReference = MediaReferenceParts;

/** Parameters of {@link MediaManager.resolveReferences}. */
export interface SvcMediaResolveMediaReferencesParams<T> {
  /** The value to scan: strings, arrays and plain objects, nested. */
  obj: T;
  /** What replaces a reference: the media's content as a `data:<type>;base64,...` URI. */
  resolveWith: "base64DataUri";
  /** Values nested deeper than this are returned unchanged. @defaultValue 10 */
  maxDepth?: number;
}

/** Settings of the media manager. */
export interface MediaManagerConfig {
  /** Time limit of each download, in milliseconds. */
  downloadTimeoutMs: number;
  /** Where downloads go when the client's `fetch` option is given. */
  backend?: Backend | undefined;
}
