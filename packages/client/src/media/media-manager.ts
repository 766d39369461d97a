import {
  describeError,
  describeFailure,
  getGlobalLogger,
  httpRequest,
  MEDIA_REFERENCE_PATTERN,
  mapLimit,
  toBase64,
  userAgent,
} from "@svc/core";
import type { SvcApi } from "../api/generated/client.js";
import { SvcMediaReference } from "./media-reference.js";

/** Default depth below which values are left as they are. */
export const DEFAULT_MEDIA_RESOLVE_MAX_DEPTH = 10;
/** Most media fetched at once by one call of `resolveReferences`. */
export const MEDIA_RESOLVE_CONCURRENCY = 8;

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
}

/** Works with media stored by the server: images, audio and files referenced from traces and datasets. */
export class MediaManager {
  /** Created by {@link SvcClient}; use `svc.media`. */
  constructor(
    private readonly api: SvcApi,
    private readonly config: MediaManagerConfig,
  ) {}

  /** Parses a media reference string. @throws {@link TypeError} when it is not one. */
  static parseReferenceString(text: string): SvcMediaReference {
    return SvcMediaReference.parse(text);
  }

  /**
   * Returns a copy of `obj` in which every media reference string is replaced by the media's content.
   * Each distinct media is fetched once. A reference that cannot be resolved stays as it is and is logged.
   * Never rejects: when `obj` cannot be walked, it is returned as given and the failure is logged.
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

  async #resolve<T>(obj: T, depth: unknown): Promise<T> {
    const maxDepth =
      typeof depth === "number" && Number.isFinite(depth) ? Math.min(depth, 100) : DEFAULT_MEDIA_RESOLVE_MAX_DEPTH;
    const found = new Set<string>();
    walk(obj, maxDepth, (text) => {
      for (const match of text.matchAll(MEDIA_REFERENCE_PATTERN)) found.add(match[0]);
      return text;
    });
    if (found.size === 0) return obj;

    const references = new Map<string, SvcMediaReference>();
    for (const text of found) {
      try {
        references.set(text, SvcMediaReference.parse(text));
      } catch (error) {
        getGlobalLogger().warn(`MediaManager: reference left unresolved: ${describeError(error)}`);
      }
    }
    const mediaIds = [...new Set([...references.values()].map((r) => r.mediaId))];
    const contents = await mapLimit(mediaIds, MEDIA_RESOLVE_CONCURRENCY, (id) => this.#download(id));
    const byId = new Map(mediaIds.map((id, i) => [id, contents[i]]));

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
      // The download URL is signed: it carries no SDK credentials, and a redirect elsewhere is followed without them.
      const result = await httpRequest({
        method: "GET",
        url: media.url,
        headers: { "user-agent": userAgent() },
        attemptTimeoutMs: this.config.downloadTimeoutMs,
        maxRetries: 2,
      });
      if (!result.ok) throw new Error(`download failed: ${describeFailure(result.failure, "GET", media.url)}`);
      if (result.response.status !== 200) throw new Error(`download answered HTTP ${result.response.status}`);
      return `data:${media.contentType};base64,${toBase64(result.response.body)}`;
    } catch (error) {
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
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = walk(item, depthLeft - 1, onString);
  return out;
}
