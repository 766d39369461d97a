import { shared } from "../registry.js";
import type { AttemptRequest, AttemptResponse, Backend } from "./backend.js";
import { sleep } from "./retry.js";

/** What the transport's test hook stands in for; each part is optional. */
export interface TransportTestHook {
  /** Answers an attempt in place of the network (a test kit's server), or `undefined` to let it go there. */
  readonly interceptor?: (
    request: AttemptRequest,
  ) => AttemptResponse | undefined | Promise<AttemptResponse | undefined>;
  /** The keys of the server the interceptor stands in for: a component created without keys takes them. */
  readonly keys?: { readonly publicKey: string; readonly secretKey: string };
  /** Stands in for the waits between retries (so that a test of the retry loop need not wait). */
  readonly wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

// Process-wide: every copy of the core in the process (two SDK versions, or both module formats) sends through the
// same hook.
const state = shared<{ hook: TransportTestHook | undefined }>("interceptor", () => ({ hook: undefined }));

/**
 * Sets the test hook for every later HTTP attempt of every svc package in the process (`undefined` removes it); used
 * by `@svc/otel/testing` and the SDK's tests, never by production code.
 */
export function setTransportInterceptor(hook: TransportTestHook | undefined): void {
  state().hook = hook;
}

/** The keys of the server an interceptor stands in for, while one is set with keys. */
export function interceptedKeys(): TransportTestHook["keys"] {
  return state().hook?.keys;
}

/** `backend`, behind the interceptor when one is set. */
export function interceptedBackend(backend: Backend): Backend {
  const interceptor = state().hook?.interceptor;
  if (interceptor === undefined) return backend;
  return async (request) => (await interceptor(request)) ?? backend(request);
}

/** Waits `ms` before a retry (rejects when `signal` aborts), or what the test hook does in its place. */
export function waitBeforeRetry(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return (state().hook?.wait ?? sleep)(ms, signal);
}
