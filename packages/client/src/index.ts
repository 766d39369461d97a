export {
  AccessDeniedError,
  BadRequestError,
  ConflictError,
  MethodNotAllowedError,
  NotFoundError,
  ServerError,
  SvcAPIError,
  SvcAPITimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
} from "./api/errors.js";
// The generated barrel names every export explicitly (SvcApi, the namespace classes, the API types).
export * from "./api/generated/index.js";
export type { ApiPromise, EmptyRequest, RequestOptions, WithRawResponse } from "./api/runtime.js";
export { SvcClient } from "./client.js";
export type { SvcClientConfig, SvcClientParams } from "./config.js";
export { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_SECONDS, resolveClientConfig } from "./config.js";
