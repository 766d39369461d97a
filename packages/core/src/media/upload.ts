import { Limiter } from "../lifecycle/limiter.js";
import { settleWithin } from "../lifecycle/settle-within.js";
import type { MediaServer, MediaUpload, MediaUploadResult } from "./upload-once.js";

/** Uploads in flight at the same time; the others wait. */
const MAX_CONCURRENT_UPLOADS = 8;

/** Stores media on the server once per media and target (`uploadOnce` loads with the first upload). Never rejects. */
export class MediaUploader {
  readonly #server: MediaServer;
  readonly #slots = new Limiter(MAX_CONCURRENT_UPLOADS);
  readonly #inFlight = new Map<string, Promise<MediaUploadResult>>();

  constructor(server: MediaServer) {
    this.#server = server;
  }

  /** Uploads `media`; a second call for the same media and target while the first runs shares its result. */
  upload(media: MediaUpload): Promise<MediaUploadResult> {
    const { target } = media;
    const key = JSON.stringify([
      media.mediaId,
      target.field,
      target.traceId,
      target.observationId,
      target.datasetItemId,
    ]);
    const running = this.#inFlight.get(key);
    if (running) return running;
    const started = this.#slots
      .run(() => import("./upload-once.js").then(({ uploadOnce }) => uploadOnce(this.#server, media)))
      .catch((error: unknown): MediaUploadResult => ({ ok: false, reason: String(error) }))
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, started);
    return started;
  }

  /** Resolves when every upload started so far has settled, or at `deadline` (epoch ms). */
  async settled(deadline: number): Promise<void> {
    const uploads = [...this.#inFlight.values()];
    await settleWithin(() => Promise.allSettled(uploads), { timeoutMs: Math.max(0, deadline - Date.now()) });
  }
}
