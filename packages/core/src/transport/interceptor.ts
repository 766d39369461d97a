import { globalSlot } from "../log/slot.js";
import type { AttemptRequest, AttemptResponse, Backend } from "./backend.js";

/**
 * Answers an HTTP attempt of the SDK in place of the network (a test kit's in-memory server), or returns
 * `undefined` to let it go to the network.
 */
export type TransportInterceptor = (
  request: AttemptRequest,
) => AttemptResponse | undefined | Promise<AttemptResponse | undefined>;

interface InterceptorState {
  interceptor: TransportInterceptor | undefined;
}

// Process-wide: every copy of the core in the process (two SDK versions, or both module formats) sends through the same interceptor.
const state = globalSlot<InterceptorState>(
  { name: "svc.transport-interceptor", version: 1, holds: "transport interceptor (the test kit's server)" },
  () => ({ interceptor: undefined }),
);

/**
 * Routes every later HTTP attempt of every svc package in the process through `interceptor` first; `undefined`
 * removes it. The test hook of the transport, used by `@svc/otel/testing`: production code never sets one, and
 * without one a request costs one property read more.
 */
export function setTransportInterceptor(interceptor: TransportInterceptor | undefined): void {
  state().interceptor = interceptor;
}

/** Whether an interceptor is set (a test kit stands in for the server). */
export function isTransportIntercepted(): boolean {
  return state().interceptor !== undefined;
}

/** `backend`, behind the interceptor when one is set. */
export function interceptedBackend(backend: Backend): Backend {
  const interceptor = state().interceptor;
  if (interceptor === undefined) return backend;
  return async (request) => (await interceptor(request)) ?? backend(request);
}
