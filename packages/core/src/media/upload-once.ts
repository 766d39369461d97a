import { getGlobalLogger } from "../log/logger.js";
import type { Backend } from "../transport/backend.js";
import { describeFailure } from "../transport/failure-text.js";
import { type HttpResult, httpRequest, urlOf } from "../transport/http.js";

// One upload of media, loaded with the first one (most applications never send media), and what it is made of.

/** One piece of media to store. */
export interface MediaUpload {
  mediaId: string;
  sha256Hash: string;
  contentType: string;
  bytes: Uint8Array;
  /** What it belongs to on the server. */
  target: { field: string; traceId?: string; observationId?: string; datasetId?: string; datasetItemId?: string };
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
  /** Sends through this backend instead of the runtime's own (the client's `fetch` option). */
  backend?: Backend;
}

/** The outcome of an upload; `reason` says what failed. */
export type MediaUploadResult = { ok: true; alreadyStored: boolean } | { ok: false; reason: string };

/** Attempts of the content upload after the first one, on a retryable failure. */
const PUT_RETRIES = 3;
/** Registration and status calls retry less: they are small and their failure is logged. */
const API_RETRIES = 2;
/** Longest time one upload (registration, content, status) may take. */
const UPLOAD_DEADLINE_MS = 120_000;

/** Registers the media, uploads the content unless the server has it, and reports the outcome. */
export async function uploadOnce(server: MediaServer, media: MediaUpload): Promise<MediaUploadResult> {
  const deadline = Date.now() + UPLOAD_DEADLINE_MS;
  const registered = await callApi(server, "POST", "/api/public/media", deadline, {
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
  const put = await httpRequest(
    {
      method: "PUT",
      url: answer.uploadUrl,
      headers: contentHeaders(answer.uploadUrl, media),
      body: media.bytes,
      attemptTimeoutMs: server.timeoutMs,
      deadline,
      maxRetries: PUT_RETRIES,
      background: server.background,
    },
    server.backend,
  );
  const status = put.ok ? put.response.status : put.failure.kind === "status" ? put.failure.status : 0;
  const failure = put.ok ? undefined : describeFailure(put.failure, "PUT", answer.uploadUrl);
  // The server records what the storage answered: its body for an error status, else what went wrong.
  const error =
    put.ok || put.failure.kind !== "status"
      ? (failure ?? null)
      : new TextDecoder().decode(put.failure.response.body.subarray(0, 1000));
  const reported = await callApi(
    server,
    "PATCH",
    `/api/public/media/${encodeURIComponent(media.mediaId)}`,
    Math.max(deadline, Date.now() + server.timeoutMs),
    {
      uploadedAt: new Date().toISOString(),
      uploadHttpStatus: status,
      uploadHttpError: error,
      uploadTimeMs: Date.now() - started,
    },
  );
  if (failure !== undefined) return { ok: false, reason: `uploading the content failed: ${failure}` };
  if (!reported.ok)
    getGlobalLogger().warn(`media ${media.mediaId} uploaded, but reporting it failed: ${reported.reason}`);
  getGlobalLogger().debug(`media ${media.mediaId} uploaded (${media.bytes.byteLength} bytes)`);
  return { ok: true, alreadyStored: false };
}

async function callApi(
  server: MediaServer,
  method: "POST" | "PATCH",
  path: string,
  deadline: number,
  body: unknown,
): Promise<{ ok: true; json: unknown } | { ok: false; reason: string }> {
  const url = `${server.baseUrl}${path}`;
  const result: HttpResult = await httpRequest(
    {
      method,
      url,
      headers: { ...server.headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      attemptTimeoutMs: server.timeoutMs,
      deadline,
      maxRetries: API_RETRIES,
      background: server.background,
    },
    server.backend,
  );
  if (!result.ok) return { ok: false, reason: describeFailure(result.failure, method, url) };
  try {
    const text = new TextDecoder().decode(result.response.body);
    return { ok: true, json: text ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    return { ok: true, json: undefined };
  }
}

/** Headers of the content upload: object stores other than Google's check the SHA-256 and need a blob type. */
function contentHeaders(uploadUrl: string, media: MediaUpload): Record<string, string> {
  const headers: Record<string, string> = { "content-type": media.contentType };
  // An invalid URL: httpRequest reports it.
  const host = urlOf(uploadUrl)?.hostname ?? "";
  if (host !== "storage.googleapis.com" && !host.endsWith(".storage.googleapis.com")) {
    headers["x-amz-checksum-sha256"] = media.sha256Hash;
    headers["x-ms-blob-type"] = "BlockBlob";
  }
  return headers;
}
