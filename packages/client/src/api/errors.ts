import { type HttpResponse, redactSecrets } from "@svc/core";

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
/** Most characters of a body that an error message or its printed form shows. */
export const EXCERPT = 300;

/**
 * Error of a REST call: an error status from the server, or a request that could not be completed.
 * `statusCode`, `body` (parsed JSON when it parses, else the text) and `rawResponse` are set when the server answered.
 * It prints compactly: name, message, status, method, path and a short excerpt of the body.
 */
export class SvcAPIError extends Error {
  override name = "SvcAPIError";
  /** HTTP status of the answer, when there was one. */
  readonly statusCode?: number;
  /** Body of the answer: parsed JSON when it parses, else the text. */
  readonly body?: unknown;
  /** The answer as received; its body has already been read. */
  declare readonly rawResponse?: Response;

  constructor(message: string, statusCode?: number, body?: unknown, rawResponse?: Response, options?: ErrorOptions) {
    super(redactSecrets(message), options);
    this.statusCode = statusCode;
    this.body = body;
    // Kept off the enumerable keys, so logging the error does not print the whole response object.
    Object.defineProperty(this, "rawResponse", { value: rawResponse, enumerable: false });
  }

  /** Compact form for `console.log` and `util.inspect`. */
  [INSPECT](): string {
    const status = this.statusCode === undefined ? "" : `\n  statusCode: ${this.statusCode}`;
    const body = this.body === undefined ? "" : `\n  body: ${excerpt(this.body)}`;
    return `${this.stack ?? `${this.name}: ${this.message}`}${status}${body}`;
  }

  /** The error for `JSON.stringify`: name, message, status and body, with registered secrets redacted. */
  toJSON(): { name: string; message: string; statusCode?: number; body?: unknown } {
    const out: { name: string; message: string; statusCode?: number; body?: unknown } = {
      name: this.name,
      message: this.message,
    };
    if (this.statusCode !== undefined) out.statusCode = this.statusCode;
    if (this.body !== undefined) out.body = redactedBody(this.body);
    return out;
  }
}

/** The body with registered secrets redacted in every string it holds. */
function redactedBody(body: unknown): unknown {
  try {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    if (text === undefined) return undefined;
    const redacted = redactSecrets(text);
    return typeof body === "string" ? redacted : (JSON.parse(redacted) as unknown);
  } catch {
    return excerpt(body);
  }
}

/** HTTP 400: the server rejected the request as invalid. */
export class BadRequestError extends SvcAPIError {
  override name = "BadRequestError";
}
/** HTTP 401: missing or wrong credentials. */
export class UnauthorizedError extends SvcAPIError {
  override name = "UnauthorizedError";
}
/** HTTP 403: the credentials do not allow this call. */
export class AccessDeniedError extends SvcAPIError {
  override name = "AccessDeniedError";
}
/** HTTP 404: the resource does not exist. */
export class NotFoundError extends SvcAPIError {
  override name = "NotFoundError";
}
/** HTTP 405: the route does not accept this method. */
export class MethodNotAllowedError extends SvcAPIError {
  override name = "MethodNotAllowedError";
}
/** HTTP 409: the request conflicts with the current state. */
export class ConflictError extends SvcAPIError {
  override name = "ConflictError";
}
/** HTTP 429: rate limited (retried before it is thrown). */
export class TooManyRequestsError extends SvcAPIError {
  override name = "TooManyRequestsError";
}
/** Any HTTP 5xx status (retried before it is thrown). */
export class ServerError extends SvcAPIError {
  override name = "ServerError";
}

/** A call did not complete within its `timeoutInSeconds` on its last try, or within its deadline. Has no status code. */
export class SvcAPITimeoutError extends SvcAPIError {
  override name = "SvcAPITimeoutError";
}

/** Reads a body leniently: JSON when it parses, the text otherwise, undefined when empty. */
export function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The body as one line of at most 300 characters, registered secrets redacted. */
export function excerpt(body: unknown): string {
  let text: string;
  try {
    text = typeof body === "string" ? body : (JSON.stringify(body) ?? String(body));
  } catch {
    text = String(body);
  }
  text = redactSecrets(text);
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
}

/** A fetch `Response` for an answer the transport read (`rawResponse`); its body is the text given. */
export function responseOf(response: HttpResponse, text: string): Response {
  const { status } = response;
  const nullBody = status === 204 || status === 205 || status === 304;
  const init = { status: status >= 200 && status <= 599 ? status : 500 };
  try {
    return new Response(nullBody ? null : text, { ...init, headers: response.headers });
  } catch {
    return new Response(nullBody ? null : text, init);
  }
}
