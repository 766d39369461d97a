import {
  type Backend,
  type HttpMethod,
  type HttpRequest,
  type HttpResult,
  httpRequest,
  mergeHeaders,
  RepeatLog,
  show,
} from "@svc/core";
import { errorFromFailure, parseBody, responseOf } from "./errors.js";

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
  /**
   * Time limit of each attempt, in seconds; a value that is not a number > 0 is ignored with a warning.
   * @defaultValue the client's `timeout` option, else 60
   */
  timeoutInSeconds?: number;
  /** Retries after a retryable failure (network error, timeout, 408, 429, 5xx). @defaultValue 2 */
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
  /** Why nothing can be sent (an invalid base URL); calls then fail at once. */
  baseUrlProblem?: string | undefined;
  /** Headers of every call: auth (when both keys are set), SDK identity, user agent, client-level extras. */
  headers: Record<string, string>;
  /** Default `timeoutInSeconds`. */
  timeoutSeconds: number;
  /** Sends through this backend instead of the runtime's own (the browser client's `fetch` option). */
  backend?: Backend;
}

/** Retries of a REST call after its first attempt, unless the call or the client says otherwise. */
export const DEFAULT_MAX_RETRIES = 2;

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

/** The route of an operation with its path parameters filled in and encoded. */
function pathOf(op: Operation, pathArgs: PathArgs): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathArgs[name])));
}

/** Builds the URL of a call: encoded path parameters, then query parameters (arrays as repeated keys). */
function buildUrl(
  baseUrl: string,
  op: Operation,
  pathArgs: PathArgs,
  request: object | undefined,
  extraQuery: Record<string, unknown> | undefined,
): string {
  const path = pathOf(op, pathArgs);
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

/** Sends the requests of every generated method: URL, headers, auth, timeout, abort, retries and typed errors. */
export class RequestRuntime {
  readonly #config: RuntimeConfig;

  constructor(config: RuntimeConfig) {
    this.#config = config;
  }

  /** Runs one operation and returns its parsed body; rejects with a typed error. */
  call<T>(op: Operation, pathArgs: PathArgs, request: unknown, options?: RequestOptions): ApiPromise<T> {
    const run = async (): Promise<WithRawResponse<T>> => {
      const prepared = this.#prepare(op, pathArgs, request, options ?? {});
      const result = await this.#send(prepared);
      if (!result.ok) {
        const sentCredentials = prepared.headers.authorization !== undefined;
        throw errorFromFailure(op, prepared.url, pathOf(op, pathArgs), sentCredentials, result);
      }
      const text = new TextDecoder().decode(result.response.body);
      return { data: parseBody(text) as T, rawResponse: responseOf(result.response, text) };
    };
    return new ApiPromise(run());
  }

  /**
   * Posts a body already encoded as JSON in the background and returns the transport's result; never rejects (for
   * queues that handle failures).
   */
  send(op: Operation, body: Uint8Array, options: RequestOptions): Promise<HttpResult> {
    return this.#send({ ...this.#prepare(op, {}, undefined, options, body), background: true });
  }

  #prepare(
    op: Operation,
    pathArgs: PathArgs,
    request: unknown,
    options: RequestOptions,
    encoded?: Uint8Array,
  ): HttpRequest {
    const hasBody = op.body === true;
    return {
      method: op.method,
      url: buildUrl(this.#config.baseUrl, op, pathArgs, hasBody ? undefined : (request as object), options.queryParams),
      headers: mergeHeaders(
        { accept: "application/json", "content-type": hasBody ? "application/json" : undefined },
        this.#config.headers,
        options.headers,
      ),
      body: hasBody ? (encoded ?? JSON.stringify(request ?? {})) : undefined,
      attemptTimeoutMs: this.#attemptTimeoutSeconds(options.timeoutInSeconds) * 1000,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      signal: options.abortSignal,
    };
  }

  /** The call's `timeoutInSeconds` when it is a number > 0; else the client's, with a warning (as for options). */
  #attemptTimeoutSeconds(value: number | undefined): number {
    if (value === undefined) return this.#config.timeoutSeconds;
    if (typeof value === "number" && value > 0 && Number.isFinite(value)) return value;
    const kind = "svc.api: the timeoutInSeconds request option must be a number > 0";
    optionWarnings.warn(
      kind,
      `${kind}, got ${show(value)}; using ${this.#config.timeoutSeconds} (the client's timeout)`,
    );
    return this.#config.timeoutSeconds;
  }

  #send(request: HttpRequest): Promise<HttpResult> {
    const { baseUrlProblem } = this.#config;
    if (baseUrlProblem !== undefined)
      return Promise.resolve({
        ok: false,
        failure: { kind: "invalid-url", detail: baseUrlProblem },
        attempts: 0,
        url: request.url,
      });
    return httpRequest(request, this.#config.backend);
  }
}

/** Warnings about request options: the first of each kind, then counts. */
const optionWarnings = new RepeatLog();

/**
 * The pages of a listing that pages by cursor (`meta.cursor`), in order. Throws rather than give part of a listing:
 * after `maxPages` pages, or when the server returns the same cursor twice; `caller` and `what` name the call and the
 * listing in the error.
 */
export async function* cursorPages<T>(
  { caller, what, maxPages }: { caller: string; what: string; maxPages: number },
  list: (cursor: { cursor?: string }) => PromiseLike<{ data: T[]; meta?: { cursor?: string | null } }>,
): AsyncGenerator<T[]> {
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const response = await list(cursor ? { cursor } : {});
    yield response.data;
    const next = response.meta?.cursor ?? undefined;
    if (!next) return;
    if (next === cursor) throw new Error(`${caller}: the server returned the same cursor twice ("${next}")`);
    cursor = next;
  }
  throw new Error(`${caller}: stopped after ${maxPages} pages of ${what}; the server kept returning a cursor`);
}
