import type { Operation } from "./runtime.js";

/**
 * Error of a REST call: an error status from the server, or a request that could not be completed.
 * `statusCode`, `body` (parsed JSON when it parses, else the text) and `rawResponse` are set when the server answered.
 */
export class SvcAPIError extends Error {
  override name = "SvcAPIError";

  constructor(
    message: string,
    /** HTTP status of the answer, when there was one. */
    readonly statusCode?: number,
    /** Body of the answer: parsed JSON when it parses, else the text. */
    readonly body?: unknown,
    /** The answer as received; its body has already been read. */
    readonly rawResponse?: Response,
    options?: ErrorOptions,
  ) {
    super(message, options);
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
/** HTTP 409: the request conflicts with the current state (retried before it is thrown). */
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

/** A call did not complete within its `timeoutInSeconds`. */
export class SvcAPITimeoutError extends Error {
  override name = "SvcAPITimeoutError";
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

/** Reads a body leniently: JSON when it parses, the text otherwise, undefined when empty. */
export function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describe(body: unknown): string {
  if (typeof body === "string") return body.slice(0, 500);
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string") return body.message;
  return body === undefined ? "" : JSON.stringify(body).slice(0, 500);
}

/** Builds the typed error for an answer with an error status; the body text has already been read. */
export function errorFromResponse(op: Operation, res: Response, text: string): SvcAPIError {
  const body = parseBody(text);
  const ErrorClass = ERROR_BY_STATUS[res.status] ?? (res.status >= 500 ? ServerError : SvcAPIError);
  const detail = describe(body);
  const message = `Status ${res.status} from ${op.method} ${op.path}${detail ? `: ${detail}` : ""}`;
  return new ErrorClass(message, res.status, body, res);
}
