// How a failed call is told: one line for a log or an error, and the fix to add to it.

import { describeError } from "../log/describe.js";
import { redactSecrets } from "../log/secrets.js";
import {
  type HttpFailure,
  type HttpResponse,
  MAX_REDIRECTS,
  printable,
  type RedirectStop,
  suggestHttpUrl,
  urlOf,
} from "./http.js";

/** One line for a failure, e.g. `HTTP 503 from cloud.svc.dev POST /api/public/scores`. */
export function describeFailure(failure: HttpFailure, method: string, url: string): string {
  const where = placeOf(url);
  switch (failure.kind) {
    case "status": {
      const tail = failure.redirect ? redirectText(failure.redirect, method, url) : bodyExcerpt(failure.response);
      return `HTTP ${failure.status} from ${where.host} ${method} ${where.path}${tail}`;
    }
    case "network":
      return `${failure.code ?? "connection failed"} on ${method} ${where.host}${where.path}${failure.code ? "" : `: ${describeError(failure.error)}`}`;
    case "timeout":
      return `no answer within ${failure.timeoutMs} ms from ${where.host} ${method} ${where.path}`;
    case "deadline":
      return `deadline reached before ${where.host} ${method} ${where.path} succeeded`;
    case "aborted":
      return `${method} ${where.host}${where.path} aborted`;
    case "invalid-url":
      return failure.detail;
    case "too-large":
      return `answer of ${where.host} ${method} ${where.path} larger than ${failure.limit} bytes`;
  }
}

/** What to check when a request to the server fails with a refused key. */
export const KEYS_HINT =
  "Check the public and secret keys (SVC_PUBLIC_KEY, SVC_SECRET_KEY) and that they belong to the server at the base URL.";

/**
 * What a user can do about a failure, as one sentence, or `""` when there is nothing to do but wait (a 5xx, a 429).
 * `delivery` marks requests the SDK sends on its own (spans, scores, media), for which a 404 means a wrong base URL.
 */
export function failureHint(failure: HttpFailure, url: string, { delivery = false } = {}): string {
  const { host } = placeOf(url);
  switch (failure.kind) {
    case "status":
      if (failure.redirect) return redirectHint(failure.redirect, url);
      if (failure.status === 401 || failure.status === 403) return KEYS_HINT;
      if (delivery && (failure.status === 404 || failure.status === 405))
        return `Check that the base URL (baseUrl or SVC_BASE_URL) is the address of the svc server; ${host} does not know this route.`;
      return "";
    case "network":
      return `Check that the server at ${host} is running and reachable, and that the base URL (baseUrl or SVC_BASE_URL) points at it.`;
    case "timeout":
      return `The server at ${host} did not answer in time; if it is only slow, raise the timeout option.`;
    case "invalid-url":
      return "Pass a valid http(s) address as baseUrl or set SVC_BASE_URL.";
    default:
      return "";
  }
}

/** The words after a final redirect's status and place: from which address to which, and why it ended there. */
function redirectText({ stop, to }: RedirectStop, method: string, url: string): string {
  const parsed = urlOf(url);
  const from = parsed ? printable(parsed) : redactSecrets(url);
  switch (stop) {
    case "method":
      return `: ${from} redirects to ${to}, which is not followed for a ${method} (the body would be lost)`;
    case "no-location":
      return " without a Location header";
    case "too-many":
      return `: more than ${MAX_REDIRECTS} redirects from ${from}, the last to ${to}`;
    case "not-followed":
      return to ? `: ${from} redirects to ${to}, which is not followed` : " (a redirect that is not followed)";
    case "other-origin":
      return `: ${from} redirects to ${to}, another origin, where the SDK never sends data or credentials`;
  }
}

/** What to do about a final redirect: point `baseUrl` at the address redirected to, when there is one. */
function redirectHint({ stop, to }: RedirectStop, url: string): string {
  const setting = "baseUrl (or SVC_BASE_URL)";
  if (to && stop === "other-origin")
    return `Set ${setting} to ${baseOf(to, url)}, where the server lives, if that address is yours.`;
  if (to && stop !== "too-many") return `Set ${setting} to ${baseOf(to, url)}, the address the server redirects to.`;
  const { host } = placeOf(url);
  return stop === "too-many"
    ? `Set ${setting} to the address of the svc server itself; ${host} redirects in a loop or through too many addresses.`
    : `Set ${setting} to the address of the svc server itself; ${host} answers with a redirect to no address (a proxy or a sign-in page in front of the server?).`;
}

/** The base address in a redirect target: without the route the SDK appended (from `/api/public/`), else its origin. */
function baseOf(to: string, requested: string): string {
  const target = urlOf(to);
  if (!target) return to;
  const requestedPath = placeOf(requested).path;
  const route = requestedPath.indexOf("/api/public/");
  if (route >= 0) {
    const suffix = requestedPath.slice(route);
    if (target.pathname.endsWith(suffix)) return `${target.origin}${target.pathname.slice(0, -suffix.length)}`;
  }
  return target.origin;
}

/** The host (with port) a URL names, or the http(s) URL it most likely means names (`127.0.0.1:3000/api/...`). */
export function hostOf(url: string): string | undefined {
  const parsed = urlOf(url);
  if ((parsed?.protocol === "http:" || parsed?.protocol === "https:") && parsed.host) return parsed.host;
  return suggestHttpUrl(url)?.host;
}

/** Host (with port) and path of a URL as they may be printed. */
export function placeOf(url: string): { host: string; path: string } {
  const parsed = urlOf(url);
  return parsed ? { host: parsed.host, path: parsed.pathname } : { host: redactSecrets(url), path: "" };
}

const EXCERPT = 200;

function bodyExcerpt(response: HttpResponse): string {
  if (response.body.byteLength === 0) return "";
  const text = new TextDecoder()
    .decode(response.body.subarray(0, EXCERPT * 4))
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return "";
  return `: ${text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text}`;
}
