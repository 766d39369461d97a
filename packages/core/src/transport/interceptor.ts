import { shared } from "../registry.js";
import type { AttemptRequest, AttemptResponse, Backend } from "./backend.js";

/**
 * Answers an HTTP attempt of the SDK in place of the network (a test kit's in-memory server), or returns
 * `undefined` to let it go to the network.
 */
export type TransportInterceptor = (
  request: AttemptRequest,
) => AttemptResponse | undefined | Promise<AttemptResponse | undefined>;

/** The keys of the server an interceptor stands in for: components given no keys use them. */
export interface InterceptedKeys {
  readonly publicKey: string;
  readonly secretKey: string;
}

interface InterceptorState {
  interceptor: TransportInterceptor | undefined;
  keys?: InterceptedKeys | undefined;
}

// Process-wide: every copy of the core in the process (two SDK versions, or both module formats) sends through the same interceptor.
const state = shared<InterceptorState>("interceptor", () => ({ interceptor: undefined }));

/**
 * Routes every later HTTP attempt of every svc package in the process through `interceptor` first; `undefined`
 * removes it. `keys` are those the stand-in server accepts: a component created meanwhile without keys of its own
 * takes them (see `resolveConnection`). The test hook of the transport, used by `@svc/otel/testing`: production code
 * never sets one, and without one a request costs one property read more.
 */
export function setTransportInterceptor(
  interceptor: TransportInterceptor | undefined,
  keys?: InterceptedKeys | undefined,
): void {
  const s = state();
  s.interceptor = interceptor;
  s.keys = interceptor === undefined ? undefined : keys;
}

/** The keys of the server an interceptor stands in for, while one is set with keys. */
export function interceptedKeys(): InterceptedKeys | undefined {
  return state().keys;
}

/** `backend`, behind the interceptor when one is set. */
export function interceptedBackend(backend: Backend): Backend {
  const interceptor = state().interceptor;
  if (interceptor === undefined) return backend;
  return async (request) => (await interceptor(request)) ?? backend(request);
}
