import { resolveClientConfig, type SvcClientConfig, type SvcClientParams } from "./config.js";

/**
 * Entry point to the svc API.
 * @example
 * ```ts
 * const svc = new SvcClient({ publicKey: "pk-...", secretKey: "sk-..." });
 * ```
 */
export class SvcClient {
  /** Settings in force, after options, environment and defaults. */
  readonly config: Readonly<SvcClientConfig>;

  constructor(params: SvcClientParams = {}) {
    this.config = Object.freeze(resolveClientConfig(params));
  }
}
