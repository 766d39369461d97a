import {
  describeError,
  describeFailure,
  failureHint,
  type HttpFailure,
  type HttpResponse,
  placeOf,
  redactSecrets,
  serializeValue,
} from "@svc/core";

/** What an error message names of the operation: its method and route. */
type Route = { method: string; path: string };

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
/** Most characters of a body that an error message or its printed form shows. */
const EXCERPT = 300;

/**
 * Error of a REST call: an error status (`statusCode`, `body` and `rawResponse` set), or a request that could not be
 * completed. Prints compactly: name, message, status, method, path and an excerpt of the body.
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
    return {
      name: this.name,
      message: this.message,
      ...(this.statusCode === undefined ? {} : { statusCode: this.statusCode }),
      ...(this.body === undefined ? {} : { body: redactedBody(this.body) }),
    };
  }
}

/** The body with registered secrets redacted in every string it holds. */
function redactedBody(body: unknown): unknown {
  if (typeof body === "string") return redactSecrets(body);
  try {
    return JSON.parse(redactSecrets(JSON.stringify(body))) as unknown;
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

/** The body as text of at most 300 characters, registered secrets redacted. */
function excerpt(body: unknown): string {
  const text = redactSecrets(serializeValue(body) ?? "");
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

const ERROR_BY_STATUS: Record<number, typeof SvcAPIError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: AccessDeniedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  429: TooManyRequestsError,
};

const NO_KEYS_HINT =
  "The client has no keys, so the request carried none: pass publicKey and secretKey, or set SVC_PUBLIC_KEY and SVC_SECRET_KEY.";

/** The typed error of a failed call to `url` (`path`: the route, parameters filled in), by status or failure. */
export function errorFromFailure(
  op: Route,
  url: string,
  path: string,
  sentCredentials: boolean,
  { failure, attempts }: { failure: HttpFailure; attempts: number },
): SvcAPIError {
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
  const hint = failureHint(failure, url);
  const withHint = (advice: string | undefined) => `${tries}${advice ? `. ${advice}` : ""}`;
  const where = `${op.method} ${path} on ${placeOf(url).host}`;
  switch (failure.kind) {
    case "status": {
      const refused = failure.status === 401 || failure.status === 403;
      return errorFromResponse(op, failure.response, withHint(refused && !sentCredentials ? NO_KEYS_HINT : hint));
    }
    case "timeout":
    case "deadline":
      return new SvcAPITimeoutError(
        `Timeout calling ${where}: ${describeFailure(failure, op.method, url)}${withHint(hint)}`,
      );
    case "aborted":
      return new SvcAPIError(`Request aborted calling ${where}`, undefined, undefined, undefined, {
        cause: failure.reason,
      });
    case "network": {
      const message = `Request failed calling ${where}: ${failure.code ?? describeError(failure.error)}${tries}. ${hint}`;
      return new SvcAPIError(message, undefined, undefined, undefined, { cause: failure.error });
    }
    default:
      return new SvcAPIError(
        `Request not sent calling ${op.method} ${path}: ${describeFailure(failure, op.method, url)}${withHint(hint)}`,
      );
  }
}

/** The typed error for an answer with an error status; its message shows the body's `message`, or an excerpt. */
function errorFromResponse(op: Route, response: HttpResponse, suffix: string): SvcAPIError {
  const text = new TextDecoder().decode(response.body);
  const body = parseBody(text);
  const { status } = response;
  const ErrorClass = ERROR_BY_STATUS[status] ?? (status >= 500 ? ServerError : SvcAPIError);
  const message = (body as { message?: unknown } | undefined)?.message;
  const detail = typeof message === "string" ? message : excerpt(body);
  const { host, path } = placeOf(response.url);
  return new ErrorClass(
    `Status ${status} from ${op.method} ${path || op.path} on ${host}${detail ? `: ${detail}` : ""}${suffix}`,
    status,
    body,
    responseOf(response, text),
  );
}
