import type { Backend } from "../transport/backend.js";
import { describeFailure } from "../transport/failure-text.js";
import { httpRequest } from "../transport/http.js";
import { userAgent } from "../transport/identity.js";

/** Options of {@link downloadMedia}. */
export interface MediaDownloadOptions {
  /** Time one attempt may take. */
  timeoutMs: number;
  /** Most bytes read. @defaultValue the transport's limit (64 MiB) */
  maxBytes?: number;
  /** Sends through this backend instead of the runtime's own (the client's `fetch` option). */
  backend?: Backend;
}

/** The content of a download, or why there is none. */
export type MediaDownload = { ok: true; bytes: Uint8Array } | { ok: false; reason: string };

/** Downloads media from its signed URL (only the user agent travels with it); non-2xx is a failure. Never rejects. */
export async function downloadMedia(url: string, options: MediaDownloadOptions): Promise<MediaDownload> {
  const result = await httpRequest(
    {
      method: "GET",
      url,
      headers: { "user-agent": userAgent() },
      attemptTimeoutMs: options.timeoutMs,
      maxRetries: 2,
      followRedirectsElsewhere: true,
      ...(options.maxBytes === undefined ? {} : { maxResponseBytes: options.maxBytes }),
    },
    options.backend,
  );
  if (!result.ok) return { ok: false, reason: describeFailure(result.failure, "GET", url) };
  const { status, body } = result.response;
  if (status < 200 || status > 299) return { ok: false, reason: `the download answered HTTP ${status}` };
  return { ok: true, bytes: body };
}
