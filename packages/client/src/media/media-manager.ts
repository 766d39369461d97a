import {
  type Backend,
  describeError,
  downloadMedia,
  getGlobalLogger,
  isPlainObject,
  MEDIA_REFERENCE_PATTERN,
  type MediaReferenceParts,
  mapLimit,
  parseMediaReference,
  toBase64,
} from "@svc/core";
import type { SvcApiClient } from "../api/generated/client.js";
import { type MediaHealth, RequestTally } from "../health.js";

/** Default depth below which values are left as they are. */
const DEFAULT_MEDIA_RESOLVE_MAX_DEPTH = 10;
/** Most media fetched at once by one call of `resolveReferences`. */
const MEDIA_RESOLVE_CONCURRENCY = 8;

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

/** Works with media stored by the server: images, audio and files referenced from traces and datasets. */
export class MediaManager {
  readonly #requests = new RequestTally();
  #unresolved = 0;

  /** Created by {@link SvcClient}; use `svc.media`. */
  constructor(
    private readonly api: SvcApiClient,
    private readonly config: MediaManagerConfig,
  ) {}

  /**
   * Reads the content type, media id and source of a media reference string.
   * @throws Error when the text is not a reference string or lacks `type`, `id` or `source`.
   */
  static parseReferenceString(text: string): ParsedMediaReference {
    const parts = parseMediaReference(text);
    if (typeof parts === "string") throw new Error(parts);
    return parts;
  }

  /**
   * A copy of `obj` with every media reference string replaced by the media's content, each media fetched once. Never
   * rejects: a reference that cannot be resolved stays, and an `obj` that cannot be walked is returned; both logged.
   */
  async resolveReferences<T>(params: SvcMediaResolveMediaReferencesParams<T>): Promise<T> {
    let obj: T | undefined;
    try {
      obj = params.obj;
      return await this.#resolve(obj, params.maxDepth);
    } catch (error) {
      getGlobalLogger().warn(`MediaManager: media references left unresolved: ${describeError(error)}`);
      return obj as T;
    }
  }

  /** Media downloads made and failed, the last failure, and references left unresolved. */
  health(): MediaHealth {
    return { ...this.#requests.health(), unresolved: this.#unresolved };
  }

  async #resolve<T>(obj: T, depth: unknown): Promise<T> {
    const maxDepth =
      typeof depth === "number" && Number.isFinite(depth) ? Math.min(depth, 100) : DEFAULT_MEDIA_RESOLVE_MAX_DEPTH;
    const found = new Set<string>();
    walk(obj, maxDepth, (text) => {
      for (const match of text.matchAll(MEDIA_REFERENCE_PATTERN)) found.add(match[0]);
      return text;
    });
    if (found.size === 0) return obj;

    const references = new Map<string, ParsedMediaReference>();
    for (const text of found) {
      const parts = parseMediaReference(text);
      if (typeof parts === "string") {
        this.#unresolved++;
        getGlobalLogger().warn(`MediaManager: reference left unresolved: ${parts}`);
      } else references.set(text, parts);
    }
    const mediaIds = [...new Set([...references.values()].map((r) => r.mediaId))];
    const contents = await mapLimit(mediaIds, MEDIA_RESOLVE_CONCURRENCY, (id) => this.#download(id));
    const byId = new Map(mediaIds.map((id, i) => [id, contents[i]]));

    for (const reference of references.values()) if (byId.get(reference.mediaId) === undefined) this.#unresolved++;
    return walk(obj, maxDepth, (text) =>
      text.replace(MEDIA_REFERENCE_PATTERN, (match) => {
        const reference = references.get(match);
        return (reference && byId.get(reference.mediaId)) ?? match;
      }),
    ) as T;
  }

  async #download(mediaId: string): Promise<string | undefined> {
    try {
      const media = await this.api.media.get(mediaId, {});
      const result = await downloadMedia(media.url, {
        timeoutMs: this.config.downloadTimeoutMs,
        backend: this.config.backend,
      });
      if (!result.ok) throw new Error(`download failed: ${result.reason}`);
      this.#requests.succeeded();
      return `data:${media.contentType};base64,${toBase64(result.bytes)}`;
    } catch (error) {
      this.#requests.failed(error);
      getGlobalLogger().warn(`MediaManager: media ${mediaId} left unresolved: ${describeError(error)}`);
      return undefined;
    }
  }
}

function walk(value: unknown, depthLeft: number, onString: (text: string) => string): unknown {
  if (depthLeft < 0) return value;
  if (typeof value === "string") return onString(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => walk(item, depthLeft - 1, onString));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = walk(item, depthLeft - 1, onString);
  return out;
}
