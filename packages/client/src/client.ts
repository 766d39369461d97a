import { SvcApi } from "./api/generated/client.js";
import { RequestRuntime } from "./api/runtime.js";
import { resolveClientConfig, type SvcClientConfig, type SvcClientParams } from "./config.js";

/**
 * Entry point to the svc API.
 * @example
 * ```ts
 * const svc = new SvcClient({ publicKey: "pk-...", secretKey: "sk-..." });
 * const { data } = await svc.api.prompts.list({ limit: 10 });
 * ```
 */
export class SvcClient {
  /** Settings in force, after options, environment and defaults. */
  readonly config: Readonly<SvcClientConfig>;
  /** The REST client, generated from the API definition: `svc.api.<namespace>.<method>(...)`. */
  readonly api: SvcApi;

  constructor(params: SvcClientParams = {}) {
    this.config = Object.freeze(resolveClientConfig(params));
    this.api = new SvcApi(
      new RequestRuntime({
        baseUrl: this.config.baseUrl,
        publicKey: this.config.publicKey,
        secretKey: this.config.secretKey,
        timeoutSeconds: this.config.timeoutSeconds,
        additionalHeaders: this.config.additionalHeaders,
      }),
    );
  }
}
