import {
  connectionSettings,
  describeError,
  environmentOption,
  fetchBackend,
  functionOption,
  getGlobalLogger,
  identityHeaders,
  logStartup,
  mergeHeaders,
  numberOption,
  optionSettings,
  RepeatLog,
  readField,
  resolveConnection,
  resolveOptions,
  stringRecordOption,
} from "@svc/core";
import { createScoresApi, type ScoresApi } from "./api/generated/scores.js";
import type { CreateScoreRequest } from "./api/generated/types.js";
import { RequestRuntime } from "./api/request-runtime.js";
import { logDroppedScore, prepareScore, rejectionOf } from "./score/validate-score.js";

/** Options of {@link SvcBrowserClient}. */
export interface SvcBrowserClientParams {
  /** Project public key; the only credential used in the browser. Required. */
  publicKey: string;
  /** Server address. @defaultValue `https://cloud.svc.dev` */
  baseUrl?: string;
  /** Environment of scores that name none. */
  environment?: string;
  /** Headers added to every request; authentication and SDK headers cannot be overridden. */
  additionalHeaders?: Record<string, string>;
  /** Time limit of each request, in seconds. @defaultValue 10 */
  timeout?: number;
  /** Retries after a network error, a timeout, 408, 429 or 5xx (at most 10). @defaultValue 2 */
  maxRetries?: number;
  /** The fetch function to use. @defaultValue `globalThis.fetch` */
  fetch?: typeof fetch;
}

const OWNER = "SvcBrowserClient";

/** How each option of {@link SvcBrowserClient} is read: its default and what is valid. */
export const BROWSER_CLIENT_SPECS = {
  environment: environmentOption([]),
  additionalHeaders: stringRecordOption(),
  timeout: numberOption(10, { min: 0 }),
  maxRetries: numberOption(2, { min: 0, minInclusive: true, max: 10, integer: true }),
  fetch: functionOption<typeof fetch>(),
};

/**
 * Records scores from a web page, authenticated with the public key only (never put a secret key in a browser).
 * @example
 * ```ts
 * import { SvcBrowserClient } from "@svc/client/browser";
 * const svc = new SvcBrowserClient({ publicKey: "pk-..." });
 * await svc.score({ name: "user-feedback", value: 1, traceId });
 * ```
 */
export class SvcBrowserClient {
  readonly #scores: ScoresApi;
  readonly #publicKey: string | undefined;
  readonly #environment: string | undefined;
  readonly #maxRetries: number;
  readonly #repeats = new RepeatLog();

  /** Never throws: a missing `publicKey` or an invalid `baseUrl` is logged, and scores are then not sent. */
  constructor(params: SvcBrowserClientParams) {
    // A browser has no environment variables: options and defaults only.
    const o = resolveOptions(OWNER, BROWSER_CLIENT_SPECS, params, {}, ["publicKey", "baseUrl"]);
    const connection = resolveConnection(
      OWNER,
      { publicKey: readField(params, "publicKey"), baseUrl: readField(params, "baseUrl") },
      {},
      { keysOptional: true },
    );
    this.#publicKey = connection.publicKey;
    if (!connection.publicKey)
      getGlobalLogger().error(
        `${OWNER}: option publicKey is required (a string starting with pk-); no score will be sent`,
      );
    const headers = mergeHeaders(
      o.additionalHeaders,
      // The SDK's own headers: an additional header with one of these names is dropped, or overwritten below.
      { authorization: null, "content-type": null, "x-svc-public-key": null, "x-svc-sdk-variant": null },
      identityHeaders(connection.publicKey),
      {
        "x-svc-sdk-integration": "browser",
        authorization: connection.publicKey ? `Bearer ${connection.publicKey}` : undefined,
      },
    );
    this.#environment = o.environment;
    this.#maxRetries = o.maxRetries;
    const backend = o.fetch ? fetchBackend(o.fetch) : undefined;
    const runtime = new RequestRuntime({ ...connection, headers, timeoutSeconds: o.timeout, backend });
    logStartup(OWNER, () => [
      ...connectionSettings(connection).slice(0, 2),
      ...optionSettings(BROWSER_CLIENT_SPECS, o),
    ]);
    this.#scores = createScoresApi(runtime);
  }

  /**
   * Sends one score to `POST /api/public/scores`. Resolves to its id once the server accepted it, or to
   * `undefined` when it was invalid, rejected or could not be sent (each logged). Never throws or rejects.
   */
  async score(score: CreateScoreRequest): Promise<{ id: string } | undefined> {
    try {
      const prepared = prepareScore(score, {}, this.#environment);
      if (!prepared.ok) {
        logDroppedScore(this.#repeats, OWNER, prepared);
        return undefined;
      }
      if (!this.#publicKey) {
        this.#repeats.error(`${OWNER}: score dropped: no publicKey`, `${OWNER}: score dropped: no publicKey was given`);
        return undefined;
      }
      const { request } = prepared;
      request.timestamp = new Date().toISOString();
      const response = await this.#scores.create([request], { maxRetries: this.#maxRetries });
      const rejection = rejectionOf(response, 1);
      if (rejection) return void getGlobalLogger().error(rejection.line);
      return { id: request.id };
    } catch (error) {
      this.#repeats.error(`${OWNER}: score lost`, `${OWNER}: score lost: ${describeError(error)}`);
      return undefined;
    }
  }
}
