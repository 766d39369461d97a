import { describeError, describeFailure, failureHint, type HttpFailure, type HttpResponse, placeOf } from "@svc/core";
import {
  AccessDeniedError,
  BadRequestError,
  ConflictError,
  EXCERPT,
  excerpt,
  MethodNotAllowedError,
  NotFoundError,
  parseBody,
  responseOf,
  ServerError,
  SvcAPIError,
  SvcAPITimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
} from "./errors.js";
import type { Operation } from "./operation.js";

const ERROR_BY_STATUS: Record<number, typeof SvcAPIError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: AccessDeniedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  429: TooManyRequestsError,
};

function detailOf(body: unknown): string {
  if (typeof body === "string") return body.slice(0, EXCERPT);
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string") return body.message;
  return body === undefined ? "" : excerpt(body);
}

/** What a failed call was: its path with real values, and whether it carried credentials. */
export interface CallContext {
  /** The route with its path parameters filled in (`/api/public/v2/prompts/greeting`). */
  path: string;
  /** Whether the request had an `Authorization` header. */
  sentCredentials: boolean;
}

const NO_KEYS_HINT =
  "The client has no keys, so the request carried none: pass publicKey and secretKey, or set SVC_PUBLIC_KEY and SVC_SECRET_KEY.";

/** The typed error for a failed call: by status when the server answered, else timeout or transport failure. */
export function errorFromFailure(
  op: Operation,
  url: string,
  failure: HttpFailure,
  attempts: number,
  call: CallContext = { path: op.path, sentCredentials: true },
): SvcAPIError {
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
  const hint = failureHint(failure, url);
  if (failure.kind === "status") {
    const refused = failure.status === 401 || failure.status === 403;
    const advice = refused && !call.sentCredentials ? NO_KEYS_HINT : hint;
    return errorFromResponse(op, failure.response, `${tries}${advice ? `. ${advice}` : ""}`);
  }
  const { host } = placeOf(url);
  const where = `${op.method} ${call.path} on ${host}`;
  switch (failure.kind) {
    case "timeout":
    case "deadline":
      return new SvcAPITimeoutError(
        `Timeout calling ${where}: ${describeFailure(failure, op.method, url)}${tries}${hint ? `. ${hint}` : ""}`,
      );
    case "aborted":
      return new SvcAPIError(`Request aborted calling ${where}`, undefined, undefined, undefined, {
        cause: failure.reason,
      });
    case "network":
      return new SvcAPIError(
        `Request failed calling ${where}: ${failure.code ?? describeError(failure.error)}${tries}. ${hint}`,
        undefined,
        undefined,
        undefined,
        { cause: failure.error },
      );
    default:
      return new SvcAPIError(
        `Request not sent calling ${op.method} ${call.path}: ${describeFailure(failure, op.method, url)}${hint ? `. ${hint}` : ""}`,
      );
  }
}

/** Builds the typed error for an answer with an error status. */
export function errorFromResponse(op: Operation, response: HttpResponse, suffix = ""): SvcAPIError {
  const text = new TextDecoder().decode(response.body);
  const body = parseBody(text);
  const { status } = response;
  const ErrorClass = ERROR_BY_STATUS[status] ?? (status >= 500 ? ServerError : SvcAPIError);
  const detail = detailOf(body);
  const { host, path } = placeOf(response.url);
  const message = `Status ${status} from ${op.method} ${path || op.path} on ${host}${detail ? `: ${detail}` : ""}${suffix}`;
  return new ErrorClass(message, status, body, responseOf(response, text));
}
