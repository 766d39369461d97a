import { SDK_VERSION } from "@svc/tracing";
import { errorFromResponse, parseBody, SvcAPIError, SvcAPITimeoutError } from "./errors.js";
import { DEFAULT_RETRY_BASE_DELAY_MS, isRetryableStatus, MAX_RETRIES_CAP, retryDelayMs, sleep } from "./retry.js";

/** HTTP methods used by the public API. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One REST operation, described as data by the generated code. */
export interface Operation {
  readonly method: HttpMethod;
  /** Route with `{name}` placeholders for path parameters. */
  readonly path: string;
  /** Names of the request fields sent as query parameters. */
  readonly query?: readonly string[];
  /** Query parameters sent as JSON text. */
  readonly json?: readonly string[];
  /** The request object is the JSON body. */
  readonly body?: true;
}

/** Path parameter values by placeholder name. */
export type PathArgs = Readonly<Record<string, string | number>>;

/**
 * Request of an operation that has no query parameters and no body: always `{}`.
 * Its type accepts no keys, so request options passed in its place do not compile.
 */
export type EmptyRequest = Record<string, never>;

/** Options accepted as the last argument of every `svc.api` method. */
export interface RequestOptions {
  /** Time limit of each attempt, in seconds. @defaultValue the client's `timeout` option, else 60 */
  timeoutInSeconds?: number;
  /** Retries after a retryable failure (408, 409, 429, 5xx, network error). @defaultValue 2 */
  maxRetries?: number;
  /** Aborts the call, including any wait between retries. */
  abortSignal?: AbortSignal;
  /** Extra headers; they win over every other header, case-insensitively. `null` removes a header. */
  headers?: Record<string, string | null | undefined>;
  /** Extra query parameters; they replace generated ones of the same name. */
  queryParams?: Record<string, unknown>;
}

/** A response body together with the response it came from. */
export interface WithRawResponse<T> {
  data: T;
  /** The answer as received; its body has already been read. */
  rawResponse: Response;
}

/** The promise of a REST call: resolves to the data; `.withRawResponse()` also gives the response. */
export class ApiPromise<T> implements Promise<T> {
  readonly #raw: Promise<WithRawResponse<T>>;
  readonly [Symbol.toStringTag] = "ApiPromise";

  /** Wraps the pending result of a REST call; the request runtime creates these for the methods of `svc.api`. */
  constructor(raw: Promise<WithRawResponse<T>>) {
    this.#raw = raw;
  }

  /** Resolves to the data and the raw response. */
  withRawResponse(): Promise<WithRawResponse<T>> {
    return this.#raw;
  }

  // biome-ignore lint/suspicious/noThenProperty: this class is a promise
  then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#raw.then((r) => r.data).then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onFinally);
  }
}

/** Settings of the request runtime. */
export interface RuntimeConfig {
  baseUrl: string;
  publicKey?: string | undefined;
  secretKey?: string | undefined;
  /** Default `timeoutInSeconds`. */
  timeoutSeconds: number;
  /** Client-level headers (below the SDK and auth headers, above the defaults). */
  additionalHeaders?: Record<string, string>;
  /** Default `maxRetries`. @defaultValue 2 */
  maxRetries?: number;
  /** First backoff step in ms. @defaultValue 1000 */
  retryBaseDelayMs?: number;
  /** Waits between retries; replaceable so tests need not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
}

const DEFAULT_MAX_RETRIES = 2;

class TimeoutSignal extends Error {}

type HeaderLayer = Record<string, string | null | undefined> | undefined;

function mergeHeaders(layers: HeaderLayer[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      const key = name.toLowerCase();
      if (value === null || value === undefined) delete merged[key];
      else merged[key] = value;
    }
  }
  return merged;
}

function basicAuth(publicKey: string, secretKey: string): string {
  const bytes = new TextEncoder().encode(`${publicKey}:${secretKey}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

function queryValue(value: unknown, json: boolean): string {
  if (json) return typeof value === "string" ? value : JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function appendQuery(params: URLSearchParams, key: string, value: unknown, json: boolean): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value) && !json) {
    for (const item of value) if (item !== undefined && item !== null) params.append(key, queryValue(item, false));
    return;
  }
  params.append(key, queryValue(value, json));
}

/** Builds the URL of a call: encoded path parameters, then query parameters (arrays as repeated keys). */
export function buildUrl(
  baseUrl: string,
  op: Operation,
  pathArgs: PathArgs,
  request: object | undefined,
  extraQuery: Record<string, unknown> | undefined,
): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathArgs[name])));
  const params = new URLSearchParams();
  const fields = (request ?? {}) as Record<string, unknown>;
  for (const key of op.query ?? []) appendQuery(params, key, fields[key], op.json?.includes(key) === true);
  for (const [key, value] of Object.entries(extraQuery ?? {})) {
    params.delete(key);
    appendQuery(params, key, value, false);
  }
  const query = params.toString();
  return `${baseUrl.replace(/\/+$/, "")}${path}${query ? `?${query}` : ""}`;
}

/** Sends the requests of every generated method: URL, headers, auth, timeout, abort, retries and errors. */
export class RequestRuntime {
  readonly #config: RuntimeConfig;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(config: RuntimeConfig) {
    this.#config = config;
    this.#fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#sleep = config.sleep ?? sleep;
  }

  /** Runs one operation and returns its parsed body. */
  call<T>(op: Operation, pathArgs: PathArgs, request: unknown, options?: RequestOptions): ApiPromise<T> {
    return new ApiPromise(this.#send<T>(op, pathArgs, request, options ?? {}));
  }

  #headers(options: RequestOptions, hasBody: boolean): Record<string, string> {
    const { publicKey, secretKey, additionalHeaders } = this.#config;
    const sdk = {
      "x-svc-sdk-name": "javascript",
      "x-svc-sdk-version": SDK_VERSION,
      "x-svc-public-key": publicKey,
    };
    const auth = publicKey && secretKey ? { authorization: basicAuth(publicKey, secretKey) } : undefined;
    return mergeHeaders([
      { accept: "application/json", "content-type": hasBody ? "application/json" : undefined },
      sdk,
      additionalHeaders,
      auth,
      sdk,
      options.headers,
    ]);
  }

  async #send<T>(
    op: Operation,
    pathArgs: PathArgs,
    request: unknown,
    options: RequestOptions,
  ): Promise<WithRawResponse<T>> {
    const hasBody = op.body === true;
    const url = buildUrl(
      this.#config.baseUrl,
      op,
      pathArgs,
      hasBody ? undefined : (request as object),
      options.queryParams,
    );
    const init: RequestInit = {
      method: op.method,
      headers: this.#headers(options, hasBody),
      body: hasBody ? JSON.stringify(request ?? {}) : undefined,
    };
    const timeoutMs = (options.timeoutInSeconds ?? this.#config.timeoutSeconds) * 1000;
    const maxRetries = Math.min(
      Math.max(options.maxRetries ?? this.#config.maxRetries ?? DEFAULT_MAX_RETRIES, 0),
      MAX_RETRIES_CAP,
    );
    const baseDelayMs = this.#config.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
    const userSignal = options.abortSignal;
    for (let attempt = 0; ; attempt++) {
      if (userSignal?.aborted) throw abortedError(op, userSignal.reason);
      let res: Response;
      let text: string;
      try {
        ({ res, text } = await this.#attempt(url, init, timeoutMs, userSignal));
      } catch (cause) {
        if (userSignal?.aborted) throw abortedError(op, cause);
        // A timed-out attempt is a transport failure like a dropped connection: retried while tries remain.
        if (attempt < maxRetries) {
          await this.#wait(op, retryDelayMs(undefined, attempt, baseDelayMs), userSignal);
          continue;
        }
        if (cause instanceof TimeoutSignal) {
          throw new SvcAPITimeoutError(`Timeout of ${timeoutMs / 1000} s exceeded calling ${op.method} ${op.path}`);
        }
        throw new SvcAPIError(
          `Request failed calling ${op.method} ${op.path}: ${String(cause)}`,
          undefined,
          undefined,
          undefined,
          { cause },
        );
      }
      if (res.status < 400) return { data: parseBody(text) as T, rawResponse: res };
      if (attempt < maxRetries && isRetryableStatus(res.status)) {
        await this.#wait(op, retryDelayMs(res.headers, attempt, baseDelayMs), userSignal);
        continue;
      }
      throw errorFromResponse(op, res, text);
    }
  }

  /** One attempt, body included, under its own time limit and the user's abort signal. */
  async #attempt(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    userSignal: AbortSignal | undefined,
  ): Promise<{ res: Response; text: string }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutSignal()), timeoutMs);
    const onUserAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
    try {
      const res = await this.#fetch(url, { ...init, signal: controller.signal });
      const text = await res.text();
      return { res, text };
    } catch (error) {
      throw controller.signal.reason instanceof TimeoutSignal ? controller.signal.reason : error;
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onUserAbort);
    }
  }

  async #wait(op: Operation, ms: number, userSignal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#sleep(ms, userSignal);
    } catch (cause) {
      throw abortedError(op, cause);
    }
  }
}

function abortedError(op: Operation, cause: unknown): SvcAPIError {
  return new SvcAPIError(`Request aborted calling ${op.method} ${op.path}`, undefined, undefined, undefined, { cause });
}
