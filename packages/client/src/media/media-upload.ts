import { getGlobalLogger } from "@svc/tracing";
import type { SvcApi } from "../api/generated/client.js";
import type { GetMediaUploadUrlRequest } from "../api/generated/types.js";
import { describe } from "../score/validate-score.js";
import type { SvcMedia } from "./svc-media.js";

/** Retries of the upload of the content after a network error, 408, 429 or 5xx. */
export const MEDIA_UPLOAD_MAX_RETRIES = 2;
const UPLOAD_RETRY_BASE_MS = 500;

/** What a media belongs to on the server. */
export interface MediaTarget {
  field: string;
  traceId?: string;
  observationId?: string;
  datasetId?: string;
  datasetItemId?: string;
}

/** Settings of an upload. */
export interface MediaUploadOptions {
  /** Time limit of each upload attempt, in milliseconds. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * Registers a media with the server and uploads its content when the server does not have it yet.
 * Resolves to the media's reference string.
 * @throws {@link Error} when the server's media id differs from the content's or the upload fails for good.
 */
export async function uploadMedia(
  api: SvcApi,
  media: SvcMedia,
  target: MediaTarget,
  options: MediaUploadOptions,
): Promise<string> {
  const { sha256Hash, mediaId } = await media.hash();
  const reference = String(await media.getReference());
  const registered = await api.media.getUploadUrl({
    ...target,
    contentType: media.contentType as GetMediaUploadUrlRequest["contentType"],
    contentLength: media.contentLength,
    sha256Hash,
  });
  if (registered.mediaId !== mediaId) {
    throw new Error(`media upload cancelled: the server's media id ${registered.mediaId} differs from ${mediaId}`);
  }
  if (!registered.uploadUrl) {
    getGlobalLogger().debug(`media ${mediaId} is already stored`);
    return reference;
  }
  const started = Date.now();
  const { status, errorText } = await putContent(registered.uploadUrl, media, sha256Hash, options);
  await api.media.patch(mediaId, {
    uploadedAt: new Date().toISOString(),
    uploadHttpStatus: status,
    uploadHttpError: errorText,
    uploadTimeMs: Date.now() - started,
  });
  if (status !== 200 && status !== 201) {
    throw new Error(`upload of media ${mediaId} failed with HTTP ${status}: ${errorText ?? ""}`);
  }
  return reference;
}

async function putContent(
  url: string,
  media: SvcMedia,
  sha256Hash: string,
  options: MediaUploadOptions,
): Promise<{ status: number; errorText: string | null }> {
  const fetcher = options.fetch ?? globalThis.fetch;
  const host = new URL(url).hostname;
  const isGcs = host === "storage.googleapis.com" || host.endsWith(".storage.googleapis.com");
  const headers: Record<string, string> = isGcs
    ? { "content-type": media.contentType }
    : { "content-type": media.contentType, "x-amz-checksum-sha256": sha256Hash, "x-ms-blob-type": "BlockBlob" };
  let last = { status: 0, errorText: null as string | null };
  for (let attempt = 0; attempt <= MEDIA_UPLOAD_MAX_RETRIES; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, UPLOAD_RETRY_BASE_MS * 2 ** (attempt - 1)));
    try {
      const response = await fetcher(url, {
        method: "PUT",
        headers,
        body: media.contentBytes as Uint8Array<ArrayBuffer>,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const text = await response.text();
      last = { status: response.status, errorText: response.ok ? null : text };
      if (response.status === 200 || response.status === 201) return last;
      if (!(response.status === 408 || response.status === 429 || response.status >= 500)) return last;
    } catch (error) {
      last = { status: 0, errorText: describe(error) };
    }
  }
  return last;
}
