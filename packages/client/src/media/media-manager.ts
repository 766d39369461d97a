import { describeError, getGlobalLogger, loadOnce, parseMediaReference } from "@svc/core";
import type { SvcApi } from "../api/generated/client.js";
import { type MediaHealth, RequestTally } from "../health.js";
import type { MediaService } from "./media-service.js";
import type { MediaManagerConfig, ParsedMediaReference, SvcMediaResolveMediaReferencesParams } from "./media-types.js";

export type { MediaManagerConfig, ParsedMediaReference, SvcMediaResolveMediaReferencesParams } from "./media-types.js";

/**
 * Works with media stored by the server: images, audio and files referenced from traces and datasets. The code that
 * resolves references loads on the first call, so that an application that resolves none does not carry it.
 */
export class MediaManager {
  #loaded: MediaService | undefined;
  /** The media code, loaded once; a failed load is tried again by the next call. */
  readonly #load = loadOnce(() =>
    import("./media-service.js").then(({ MediaService }) => {
      this.#loaded = new MediaService(this.api, this.config);
      return this.#loaded;
    }),
  );

  /** Created by {@link SvcClient}; use `svc.media`. */
  constructor(
    private readonly api: SvcApi,
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
   * Returns a copy of `obj` in which every media reference string is replaced by the media's content.
   * Each distinct media is fetched once. A reference that cannot be resolved stays as it is and is logged.
   * Never rejects: when `obj` cannot be walked, it is returned as given and the failure is logged.
   */
  async resolveReferences<T>(params: SvcMediaResolveMediaReferencesParams<T>): Promise<T> {
    let service: MediaService;
    try {
      service = await this.#load();
    } catch (error) {
      getGlobalLogger().warn(`MediaManager: media references left unresolved: ${describeError(error)}`);
      return params.obj;
    }
    return service.resolveReferences(params);
  }

  /** Media downloads made and failed, the last failure, and references left unresolved. */
  health(): MediaHealth {
    return this.#loaded?.health() ?? { ...new RequestTally().health(), unresolved: 0 };
  }
}
