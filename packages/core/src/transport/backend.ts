import type * as NodeHttp from "node:http";
import { concatBytes } from "./compress.js";
import { currentRuntime, nodeBuiltin } from "./runtime.js";

/** One attempt of a request, as the transport hands it to a backend. */
export interface AttemptRequest {
  method: string;
  url: URL;
  /** Final headers, lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /** The attempt is abandoned (and `AttemptTimeoutError` thrown) after this long. */
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Reading more response bytes than this fails the attempt with `ResponseTooLargeError`. */
  maxResponseBytes: number;
  /** The request must not keep the process alive by itself (where the runtime can tell its sockets so). */
  background?: boolean;
}

/** What came back: status, headers (lower-case names) and the whole body. */
export interface AttemptResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Performs one HTTP exchange; rejects on network failure, timeout, abort or an oversized answer. */
export type Backend = (request: AttemptRequest) => Promise<AttemptResponse>;

/** An attempt that took longer than its time limit. */
export class AttemptTimeoutError extends Error {
  override name = "TimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** An answer larger than the caller accepts. */
export class ResponseTooLargeError extends Error {
  override name = "ResponseTooLargeError";
  constructor(readonly limit: number) {
    super(`answer larger than ${limit} bytes`);
  }
}

/** `node:http(s)` with keep-alive on Node (its `fetch` adds a browser's headers), the runtime's `fetch` elsewhere. */
export function defaultBackend(): Backend {
  cached ??= nodeBackend() ?? fetchBackend((input, init) => globalThis.fetch(input, init));
  return cached;
}
let cached: Backend | undefined;

function nodeBackend(): Backend | undefined {
  if (currentRuntime().kind !== "node") return undefined;
  const http = nodeBuiltin<typeof NodeHttp>("node:http");
  const https = nodeBuiltin<typeof NodeHttp>("node:https");
  if (!http || !https) return undefined;
  // Idle keep-alive sockets are unref'd by Node, so they never keep a process alive.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: 32, timeout: 30_000 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: 32, timeout: 30_000 }),
  };
  return (request) =>
    new Promise<AttemptResponse>((resolve, reject) => {
      const module = request.url.protocol === "https:" ? https : http;
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers["content-length"] = String(request.body.byteLength);
      let settled = false;
      const finish = (error: Error | undefined, response?: AttemptResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener("abort", onAbort);
        if (error) reject(error);
        else resolve(response as AttemptResponse);
      };
      const req = module.request(
        request.url,
        { method: request.method, headers, agent: agents[request.url.protocol as "http:" | "https:"] },
        (res) => {
          const chunks: Uint8Array[] = [];
          let size = 0;
          res.on("data", (chunk: Uint8Array) => {
            size += chunk.byteLength;
            if (size > request.maxResponseBytes) req.destroy(new ResponseTooLargeError(request.maxResponseBytes));
            else chunks.push(chunk);
          });
          res.on("error", (error) => finish(error));
          res.on("end", () =>
            finish(undefined, {
              status: res.statusCode ?? 0,
              headers: flatHeaders(res.headers),
              body: concatBytes(chunks, size),
            }),
          );
        },
      );
      const timer = setTimeout(() => req.destroy(new AttemptTimeoutError(request.timeoutMs)), request.timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      const onAbort = () => req.destroy(abortReason(request.signal));
      request.signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (error) => finish(error));
      // A background request (a queue's export) leaves keeping the process alive to flush() and shutdown().
      if (request.background) req.on("socket", (socket) => socket.unref?.());
      req.end(request.body);
    });
}

/** A backend on a `fetch` function: for browsers, edge runtimes and a `fetch` given by the user. */
export function fetchBackend(fetchFn: typeof fetch): Backend {
  return async (request) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeoutError(request.timeoutMs)), request.timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    const onAbort = () => controller.abort(abortReason(request.signal));
    request.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const res = await fetchFn(request.url.href, {
        method: request.method,
        headers: request.headers,
        body: request.body as BodyInit | undefined,
        signal: controller.signal,
      });
      const body = new Uint8Array(await res.arrayBuffer());
      if (body.byteLength > request.maxResponseBytes) throw new ResponseTooLargeError(request.maxResponseBytes);
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      return { status: res.status, headers, body };
    } catch (error) {
      const reason: unknown = controller.signal.reason;
      throw controller.signal.aborted && reason instanceof Error ? reason : error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    }
  };
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("the request was aborted", "AbortError");
}

function flatHeaders(raw: NodeHttp.IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
