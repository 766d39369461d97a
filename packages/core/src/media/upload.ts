import { getGlobalLogger } from "../log/logger.js";
import { Limiter } from "../queue/limiter.js";
import { describeFailure } from "../transport/failure-text.js";
import { type HttpResult, httpRequest } from "../transport/http.js";

/** What a piece of media belongs to on the server. */
export interface MediaTarget {
  field: string;
  traceId?: string;
  observationId?: string;
  datasetId?: string;
  datasetItemId?: string;
}

/** One piece of media to store. */
export interface MediaUpload {
  mediaId: string;
  sha256Hash: string;
  contentType: string;
  bytes: Uint8Array;
  target: MediaTarget;
}

/** The server and credentials media is registered with. */
export interface MediaServer {
  baseUrl: string;
  /** Auth and identity headers of REST calls. */
  headers: Record<string, string>;
  /** Time limit of each request attempt. */
  timeoutMs: number;
  /** Uploads run in the background, started by the span processor rather than awaited by a caller. @defaultValue false */
  background?: boolean;
}

/** The outcome of an upload; `reason` says what failed. */
export type MediaUploadResult = { ok: true; alreadyStored: boolean } | { ok: false; reason: string };

/** Attempts of the content upload after the first one, on a retryable failure. */
const PUT_RETRIES = 3;
/** Registration and status calls retry less: they are small and their failure is logged. */
const API_RETRIES = 2;
/** Uploads in flight at the same time; the others wait. */
const MAX_CONCURRENT_UPLOADS = 8;
/** Longest time one upload (registration, content, status) may take. */
const UPLOAD_DEADLINE_MS = 120_000;

/**
 * Stores media on the server, once per media and target: registers it (`POST /api/public/media`), uploads the
 * content to the URL the server hands back unless it has it already, then reports the upload's outcome
 * (`PATCH /api/public/media/{id}`). Used by the span processor and the client alike. Never rejects.
 */
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
      .run(() => this.#uploadOnce(media))
      .catch((error: unknown): MediaUploadResult => ({ ok: false, reason: String(error) }))
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, started);
    return started;
  }

  /** Resolves when every upload started so far has settled, or at `deadline` (epoch ms). */
  async settled(deadline: number): Promise<void> {
    const all = Promise.allSettled([...this.#inFlight.values()]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
    });
    await Promise.race([all, timeout]);
    clearTimeout(timer);
  }

  /** Uploads in flight or waiting for a slot. */
  get pending(): number {
    return this.#inFlight.size;
  }

  async #uploadOnce(media: MediaUpload): Promise<MediaUploadResult> {
    const deadline = Date.now() + UPLOAD_DEADLINE_MS;
    const registered = await this.#api("POST", "/api/public/media", deadline, {
      ...media.target,
      contentType: media.contentType,
      contentLength: media.bytes.byteLength,
      sha256Hash: media.sha256Hash,
    });
    if (!registered.ok) return { ok: false, reason: `registering the media failed: ${registered.reason}` };
    const answer = registered.json as { uploadUrl?: string | null; mediaId?: string } | undefined;
    if (answer?.mediaId !== media.mediaId)
      return { ok: false, reason: `the server's media id ${String(answer?.mediaId)} differs from ${media.mediaId}` };
    if (!answer.uploadUrl) {
      getGlobalLogger().debug(`media ${media.mediaId} is already stored`);
      return { ok: true, alreadyStored: true };
    }
    const started = Date.now();
    const put = await httpRequest({
      method: "PUT",
      url: answer.uploadUrl,
      headers: contentHeaders(answer.uploadUrl, media),
      body: media.bytes,
      attemptTimeoutMs: this.#server.timeoutMs,
      deadline,
      maxRetries: PUT_RETRIES,
      background: this.#server.background,
    });
    const status = put.ok ? put.response.status : put.failure.kind === "status" ? put.failure.status : 0;
    // The server records what the storage answered: its body for an error status, else what went wrong.
    const error = put.ok
      ? null
      : put.failure.kind === "status"
        ? new TextDecoder().decode(put.failure.response.body.subarray(0, 1000))
        : describeFailure(put.failure, "PUT", answer.uploadUrl);
    const reported = await this.#api(
      "PATCH",
      `/api/public/media/${encodeURIComponent(media.mediaId)}`,
      Math.max(deadline, Date.now() + this.#server.timeoutMs),
      {
        uploadedAt: new Date().toISOString(),
        uploadHttpStatus: status,
        uploadHttpError: error,
        uploadTimeMs: Date.now() - started,
      },
    );
    if (!put.ok)
      return {
        ok: false,
        reason: `uploading the content failed: ${describeFailure(put.failure, "PUT", answer.uploadUrl)}`,
      };
    if (!reported.ok)
      getGlobalLogger().warn(`media ${media.mediaId} uploaded, but reporting it failed: ${reported.reason}`);
    getGlobalLogger().debug(`media ${media.mediaId} uploaded (${media.bytes.byteLength} bytes)`);
    return { ok: true, alreadyStored: false };
  }

  async #api(
    method: "POST" | "PATCH",
    path: string,
    deadline: number,
    body: unknown,
  ): Promise<{ ok: true; json: unknown } | { ok: false; reason: string }> {
    const url = `${this.#server.baseUrl}${path}`;
    const result: HttpResult = await httpRequest({
      method,
      url,
      headers: { ...this.#server.headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      attemptTimeoutMs: this.#server.timeoutMs,
      deadline,
      maxRetries: API_RETRIES,
      background: this.#server.background,
    });
    if (!result.ok) return { ok: false, reason: describeFailure(result.failure, method, url) };
    try {
      const text = new TextDecoder().decode(result.response.body);
      return { ok: true, json: text ? (JSON.parse(text) as unknown) : undefined };
    } catch {
      return { ok: true, json: undefined };
    }
  }
}

/** Headers of the content upload: object stores other than Google's check the SHA-256 and need a blob type. */
function contentHeaders(uploadUrl: string, media: MediaUpload): Record<string, string> {
  const headers: Record<string, string> = { "content-type": media.contentType };
  let host = "";
  try {
    host = new URL(uploadUrl).hostname;
  } catch {
    // httpRequest reports the invalid URL.
  }
  if (host !== "storage.googleapis.com" && !host.endsWith(".storage.googleapis.com")) {
    headers["x-amz-checksum-sha256"] = media.sha256Hash;
    headers["x-ms-blob-type"] = "BlockBlob";
  }
  return headers;
}
