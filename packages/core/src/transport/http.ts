import { context, createContextKey } from "@opentelemetry/api";
import { redactSecrets } from "../log/secrets.js";
import {
  type AttemptResponse,
  AttemptTimeoutError,
  type Backend,
  defaultBackend,
  ResponseTooLargeError,
} from "./backend.js";
import { interceptedBackend, waitBeforeRetry } from "./interceptor.js";
import { isRetryableStatus, MAX_RETRIES_CAP, parseRetryAfter, retryDelayMs } from "./retry.js";

/** HTTP methods the SDK uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One call: a request and how long and how often it may be tried. */
export interface HttpRequest {
  method: HttpMethod;
  url: string;
  /** Every header to send, lower-case names (the transport adds only `content-length`). */
  headers: Record<string, string>;
  body?: Uint8Array | string;
  /** Time one attempt may take, answer included. */
  attemptTimeoutMs: number;
  /** When the whole call, retries and waits included, must be over (epoch ms). @defaultValue no deadline beyond the attempts */
  deadline?: number;
  /** Retries after the first attempt (capped at 10). */
  maxRetries: number;
  /** Aborts the call, including any wait between retries. */
  signal?: AbortSignal;
  /** Most answer bytes read. @defaultValue 64 MiB */
  maxResponseBytes?: number;
  /**
   * Sent in the background (a queue's export): on Node its socket does not keep the process alive by itself, so the
   * process can end while such a request waits; `flush()` and `shutdown()` hold the process while they wait.
   * @defaultValue false
   */
  background?: boolean;
  /**
   * Follows redirects to another origin too, without `Authorization` (a signed download URL): only for a request
   * carrying neither telemetry nor credentials beyond its own URL. @defaultValue false
   */
  followRedirectsElsewhere?: boolean;
}

/** An answer from the server (any status). */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The URL that answered, after redirects. */
  url: string;
}

/**
 * Why a redirect answer was the last one: `method` is a 301, 302 or 303 to a request other than a GET.
 * Else `no-location`, `too-many` hops, `not-followed` (300, 304...), `other-origin` with telemetry or credentials.
 */
export interface RedirectStop {
  /** Why the redirect was not followed. */
  stop: "method" | "no-location" | "too-many" | "not-followed" | "other-origin";
  /** Where the redirect pointed, as it may be printed (no credentials, no query). */
  to?: string;
}

/** Why a call did not end in a success status. */
export type HttpFailure =
  /**
   * The server answered with an error status (the last answer, after retries), or with a 3xx that was not followed:
   * then `redirect` says why.
   */
  | { kind: "status"; status: number; response: HttpResponse; retryAfterMs?: number; redirect?: RedirectStop }
  /** The connection failed (refused, reset, DNS...): `code` is the system error code when there is one. */
  | { kind: "network"; code?: string; error: unknown }
  /** An attempt got no complete answer within its time limit. */
  | { kind: "timeout"; timeoutMs: number }
  /** The call's deadline passed before an attempt could succeed. */
  | { kind: "deadline" }
  /** The caller's signal aborted the call. */
  | { kind: "aborted"; reason: unknown }
  /** The URL is not a valid http(s) URL; nothing was sent. */
  | { kind: "invalid-url"; detail: string }
  /** The answer was larger than the caller accepts. */
  | { kind: "too-large"; limit: number };

/** The outcome of a call: an answer with a 1xx or 2xx status, or the failure that ended it. */
export type HttpResult = (
  | { ok: true; response: HttpResponse }
  | { ok: false; failure: HttpFailure /** The failure before a deadline ended the call. */; last?: HttpFailure }
) & {
  /** Attempts made (0 when nothing was sent). */
  attempts: number;
  /** The URL of the request, as given. */
  url: string;
};

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Redirects followed before a call stops. */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The key OpenTelemetry's SDK and instrumentations read to skip tracing (same symbol in every copy). */
const SUPPRESS_TRACING_KEY = createContextKey("OpenTelemetry SDK Context Key SUPPRESS_TRACING");

/**
 * Sends one request: every HTTP call of the SDK goes through here. Each attempt has its own time limit, the whole call
 * a deadline. Network errors, timeouts, 408, 429 and 5xx are retried (backoff with jitter, or `Retry-After`) while
 * attempts and the deadline allow; other statuses, an invalid URL or scheme end the call at once. Up to five redirects
 * are followed (307/308 with the body, 301/302/303 of a GET), to the same origin only: no header, body or credential
 * reaches an origin it was not addressed to, and a 3xx not followed is a failure. Runs with OpenTelemetry tracing
 * suppressed, so instrumentation never records the SDK's own calls. Never rejects.
 */
export async function httpRequest(request: HttpRequest, backend?: Backend): Promise<HttpResult> {
  const url = parseHttpUrl(request.url);
  const done = (result: DistributiveOmit<HttpResult, "url">): HttpResult =>
    ({ ...result, url: request.url }) as HttpResult;
  if (typeof url === "string") return done({ ok: false, failure: { kind: "invalid-url", detail: url }, attempts: 0 });
  const send = interceptedBackend(backend ?? defaultBackend());
  const body = typeof request.body === "string" ? new TextEncoder().encode(request.body) : request.body;
  const maxRetries = Math.min(Math.max(0, Math.floor(request.maxRetries)), MAX_RETRIES_CAP);
  let last: HttpFailure | undefined;
  for (let attempt = 0; ; attempt++) {
    if (request.signal?.aborted) return done({ ok: false, failure: aborted(request.signal), attempts: attempt });
    const remaining = request.deadline === undefined ? Number.POSITIVE_INFINITY : request.deadline - Date.now();
    if (remaining <= 0) return done({ ok: false, failure: { kind: "deadline" }, attempts: attempt, last });
    const timeoutMs = Math.max(1, Math.min(request.attemptTimeoutMs, remaining));
    const outcome = await suppressed(() => attemptWithRedirects(send, request, url, body, timeoutMs));
    if ("response" in outcome && outcome.response.status < 300)
      return done({ ok: true, response: outcome.response, attempts: attempt + 1 });
    const failure = "response" in outcome ? statusFailure(outcome.response, outcome.redirect) : outcome.failure;
    if (failure.kind === "aborted" || !isRetryable(failure) || attempt >= maxRetries)
      return done({ ok: false, failure, attempts: attempt + 1 });
    const delayMs = retryDelayMs(attempt, failure.kind === "status" ? failure.retryAfterMs : undefined);
    if (request.deadline !== undefined && Date.now() + delayMs >= request.deadline)
      return done({ ok: false, failure, attempts: attempt + 1 });
    last = failure;
    try {
      await waitBeforeRetry(delayMs, request.signal);
    } catch {
      return done({ ok: false, failure: aborted(request.signal), attempts: attempt + 1 });
    }
  }
}

/** Whether another attempt may succeed where this one failed. */
export function isRetryable(failure: HttpFailure): boolean {
  if (failure.kind === "status") return isRetryableStatus(failure.status);
  return failure.kind === "network" || failure.kind === "timeout";
}

/** The URL, or why it is not a valid http(s) URL. */
export function parseHttpUrl(text: string): URL | string {
  const url = urlOf(text);
  if (url === undefined) return `"${redactSecrets(String(text))}" is not a valid URL${didYouMean(text)}`;
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `"${redactSecrets(text)}" has the unsupported scheme ${url.protocol.replace(/:$/, "")} (use http or https)${didYouMean(text)}`;
  return url;
}

function didYouMean(text: string): string {
  const suggestion = suggestHttpUrl(text);
  return suggestion === undefined ? "" : ` (did you mean ${redactSecrets(suggestion.href.replace(/\/$/, ""))}?)`;
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "host.docker.internal"]);

/** Whether a URL's host name is this machine (or the Docker host), where plain http is fine. */
export function isLocalHost(hostname: string): boolean {
  return LOCAL_HOSTS.has(hostname) || hostname.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The http(s) URL that address text without a valid scheme most likely means (`127.0.0.1:3000`, `http//host`). */
export function suggestHttpUrl(text: string): URL | undefined {
  const trimmed = String(text).trim();
  if (trimmed === "" || /\s/.test(trimmed)) return undefined;
  const mangled = /^(https?):?\/*(?=[^/])/i.exec(trimmed);
  let candidate: string;
  if (mangled && !/^https?:\/\//i.test(trimmed))
    candidate = `${mangled[1]?.toLowerCase()}://${trimmed.slice(mangled[0].length)}`;
  else if (!trimmed.includes("://")) candidate = `https://${trimmed}`;
  else return undefined;
  const url = urlOf(candidate);
  if (url === undefined) return undefined;
  const local = isLocalHost(url.hostname);
  if (!local && !url.hostname.includes(".") && url.port === "") return undefined;
  // Without a scheme, a local address means the plain http of a server on this machine.
  if (local && !mangled) url.protocol = "http:";
  return url;
}

type AttemptOutcome = { response: HttpResponse; redirect?: RedirectStop } | { failure: HttpFailure };

async function attemptWithRedirects(
  send: Backend,
  request: HttpRequest,
  start: URL,
  body: Uint8Array | undefined,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  let url = start;
  let method: string = request.method;
  let headers = request.headers;
  let payload = body;
  const maxResponseBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  for (let hop = 0; ; hop++) {
    let answer: AttemptResponse;
    try {
      answer = await send({
        method,
        url,
        headers,
        body: payload,
        timeoutMs,
        signal: request.signal,
        maxResponseBytes,
        background: request.background,
      });
    } catch (error) {
      return { failure: thrownFailure(error, request.signal) };
    }
    const response: HttpResponse = { ...answer, url: url.href };
    if (answer.status < 300 || answer.status >= 400) return { response };
    const location = answer.headers.location;
    const next = location ? parseHttpUrl(urlOf(location, url)?.href ?? location) : undefined;
    const to = next instanceof URL ? printable(next) : undefined;
    const stopped = (stop: RedirectStop["stop"]) => ({ response, redirect: to ? { stop, to } : { stop } });
    if (!REDIRECTS.has(answer.status)) return stopped("not-followed");
    if (!location) return stopped("no-location");
    if (!(next instanceof URL)) return stopped("not-followed");
    if (hop >= MAX_REDIRECTS) return stopped("too-many");
    const keepsMethod = answer.status === 307 || answer.status === 308;
    if (!keepsMethod && method !== "GET") return stopped("method");
    if (next.origin !== url.origin) {
      if (!request.followRedirectsElsewhere) return stopped("other-origin");
      // Credentials stay with the origin they were given for.
      const { authorization: _dropped, ...rest } = headers;
      headers = rest;
    }
    url = next;
    method = keepsMethod ? method : "GET";
    payload = keepsMethod ? payload : undefined;
  }
}

function statusFailure(response: HttpResponse, redirect: RedirectStop | undefined): HttpFailure {
  if (redirect) return { kind: "status", status: response.status, response, redirect };
  const retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
  return { kind: "status", status: response.status, response, retryAfterMs };
}

/** The URL `text` names (relative to `base` when given), or undefined when it names none. */
export function urlOf(text: string, base?: URL): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

/** An address as a log line may carry it: no credentials, no query (a signed URL's signature), no fragment. */
export function printable(url: URL): string {
  return redactSecrets(`${url.origin}${url.pathname}`);
}

function thrownFailure(error: unknown, signal: AbortSignal | undefined): HttpFailure {
  if (signal?.aborted) return aborted(signal);
  if (error instanceof AttemptTimeoutError) return { kind: "timeout", timeoutMs: error.timeoutMs };
  if (error instanceof ResponseTooLargeError) return { kind: "too-large", limit: error.limit };
  const code = systemCode(error);
  return code === undefined ? { kind: "network", error } : { kind: "network", code, error };
}

function aborted(signal: AbortSignal | undefined): HttpFailure {
  return { kind: "aborted", reason: signal?.reason };
}

/** The system error code of a failed connection (`ECONNREFUSED`), looking through causes as `fetch` wraps them. */
function systemCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Runs `fn` with OpenTelemetry tracing suppressed for everything it starts, asynchronously too. */
export function suppressed<T>(fn: () => T): T {
  return context.with(context.active().setValue(SUPPRESS_TRACING_KEY, true), fn);
}
