import { getGlobalLogger } from "@svc/tracing";
import { describe } from "../internal/otlp-http.js";

/** One piece of media found in a span, ready to upload. */
export interface MediaUpload {
  mediaId: string;
  sha256Hash: string;
  contentType: string;
  bytes: Uint8Array;
  traceId: string;
  observationId: string;
  field: "input" | "output" | "metadata";
}

/** Server address, headers (with auth) and per-request timeout for the media routes. */
export interface MediaTarget {
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

const PUT_RETRIES = 3;
const PUT_RETRY_BASE_MS = 1000;
const log = () => getGlobalLogger();

/**
 * Uploads one piece of media: asks the server for an upload URL, PUTs the bytes there (retried),
 * then reports the outcome. Logs failures; never rejects.
 */
export async function uploadMedia(target: MediaTarget, media: MediaUpload): Promise<void> {
  try {
    const res = await request(target, "POST", "/api/public/media", {
      traceId: media.traceId,
      observationId: media.observationId,
      contentType: media.contentType,
      contentLength: media.bytes.length,
      sha256Hash: media.sha256Hash,
      field: media.field,
    });
    if (!res.ok) throw new Error(`POST /api/public/media answered HTTP ${res.status} ${await safeText(res)}`);
    const answer = (await res.json()) as { uploadUrl?: string | null; mediaId?: string };
    if (answer.mediaId !== media.mediaId)
      throw new Error(`server media id ${String(answer.mediaId)} differs from ${media.mediaId}; upload cancelled`);
    if (!answer.uploadUrl) {
      log().debug(`SvcSpanProcessor: media ${media.mediaId} already uploaded`);
      return;
    }
    const started = Date.now();
    const put = await putBytes(target, answer.uploadUrl, media);
    await request(target, "PATCH", `/api/public/media/${encodeURIComponent(media.mediaId)}`, {
      uploadedAt: new Date().toISOString(),
      uploadHttpStatus: put.status,
      uploadHttpError: put.ok ? null : put.error,
      uploadTimeMs: Date.now() - started,
    }).then((r) => r.body?.cancel());
    if (!put.ok) throw new Error(`upload answered ${put.status}: ${put.error}`);
    log().debug(`SvcSpanProcessor: media ${media.mediaId} uploaded (${media.bytes.length} bytes)`);
  } catch (error) {
    log().error(
      `SvcSpanProcessor: media upload failed, the span keeps its media reference without content ` +
        `(mediaId=${media.mediaId}, traceId=${media.traceId}): ${describe(error)}`,
    );
  }
}

async function putBytes(
  target: MediaTarget,
  url: string,
  media: MediaUpload,
): Promise<{ ok: boolean; status: number; error: string }> {
  const headers: Record<string, string> = { "content-type": media.contentType };
  if (!/(^|\.)storage\.googleapis\.com$/.test(new URL(url).hostname)) {
    headers["x-amz-checksum-sha256"] = media.sha256Hash;
    headers["x-ms-blob-type"] = "BlockBlob";
  }
  let last = { ok: false, status: 0, error: "not attempted" };
  for (let attempt = 0; attempt <= PUT_RETRIES; attempt++) {
    if (attempt > 0) await sleep(PUT_RETRY_BASE_MS * 2 ** (attempt - 1) + Math.random() * PUT_RETRY_BASE_MS);
    try {
      const res = await fetch(url, {
        method: "PUT",
        headers,
        body: media.bytes as BodyInit,
        signal: AbortSignal.timeout(target.timeoutMs),
      });
      if (res.status === 200 || res.status === 201) {
        await res.body?.cancel();
        return { ok: true, status: res.status, error: "" };
      }
      last = { ok: false, status: res.status, error: await safeText(res) };
    } catch (error) {
      last = { ok: false, status: 0, error: describe(error) };
    }
  }
  return last;
}

function request(target: MediaTarget, method: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${target.baseUrl}${path}`, {
    method,
    headers: target.headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(target.timeoutMs),
  });
}

async function safeText(res: Response): Promise<string> {
  return (await res.text().catch(() => "")).slice(0, 300);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
