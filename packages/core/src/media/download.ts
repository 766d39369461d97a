import type { Backend } from "../transport/backend.js";
import { describeFailure } from "../transport/failure-text.js";
import { httpRequest } from "../transport/http.js";
import { userAgent } from "../transport/identity.js";

/**
 * Downloads media from its signed URL (only the user agent travels with it), each attempt within `timeoutMs`, at most
 * `maxBytes` (the transport's 64 MiB by default), through `backend` (the client's `fetch` option) if given; non-2xx is
 * a failure, with its reason. Never rejects.
 */
export async function downloadMedia(
  url: string,
  options: { timeoutMs: number; maxBytes?: number; backend?: Backend },
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; reason: string }> {
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
