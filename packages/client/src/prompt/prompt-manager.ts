import { loadOnce } from "@svc/core";
import type { SvcApi } from "../api/generated/client.js";
import type { Prompt } from "../api/generated/types.js";
import type { RequestOptions } from "../api/runtime.js";
import { type PromptHealth, RequestTally } from "../health.js";
import type { ChatPromptGetOptions, PromptGetOptions, TextPromptGetOptions } from "./get-options.js";
import type { ChatPromptClient, PromptClient, TextPromptClient } from "./prompt-clients.js";
import type { PromptService } from "./prompt-service.js";
import type { CreateChatPromptBodyWithPlaceholders, CreateTextPromptBody } from "./types.js";

export type { ChatPromptGetOptions, PromptGetOptions, TextPromptGetOptions } from "./get-options.js";
export { DEFAULT_PROMPT_FETCH_TIMEOUT_MS } from "./get-options.js";

/**
 * Fetches, caches, creates and relabels prompts. The cache and the requests load on the first call, so that an
 * application that uses no prompt does not carry them.
 */
export class PromptManager {
  #loaded: PromptService | undefined;
  /** The prompt code, loaded once; a failed load is tried again by the next call. */
  readonly #load = loadOnce(() =>
    import("./prompt-service.js").then(({ PromptService }) => {
      this.#loaded = new PromptService(this.api);
      return this.#loaded;
    }),
  );

  /** Created by {@link SvcClient}; use `svc.prompt`. */
  constructor(private readonly api: SvcApi) {}

  /**
   * Gets a prompt, from the cache when fresh. An expired entry is returned at once while one background
   * refresh runs. When nothing is cached and the fetch fails, `fallback` is returned if given.
   * @throws {@link SvcAPIError} (for example {@link NotFoundError}) when the fetch fails and there is no fallback.
   */
  get(name: string, options: ChatPromptGetOptions): Promise<ChatPromptClient>;
  get(name: string, options: TextPromptGetOptions): Promise<TextPromptClient>;
  get(name: string, options?: PromptGetOptions): Promise<PromptClient>;
  get(name: string, options?: PromptGetOptions): Promise<PromptClient> {
    // Once loaded, straight to the cache: `get()` is on the request path of many applications.
    return this.#loaded ? this.#loaded.get(name, options) : this.#load().then((service) => service.get(name, options));
  }

  /**
   * Creates a prompt version. Chat items without a `type` are sent as messages.
   * @throws {@link SvcAPIError} when the request fails.
   */
  async create(body: CreateChatPromptBodyWithPlaceholders, options?: RequestOptions): Promise<ChatPromptClient>;
  async create(body: CreateTextPromptBody, options?: RequestOptions): Promise<TextPromptClient>;
  async create(
    body: CreateChatPromptBodyWithPlaceholders | CreateTextPromptBody,
    options?: RequestOptions,
  ): Promise<PromptClient> {
    return (await this.#load()).create(body, options);
  }

  /**
   * Sets the labels of a prompt version and drops the prompt from the cache.
   * @throws {@link SvcAPIError} when the request fails.
   */
  async update(
    params: { name: string; version: number; newLabels: string[] },
    options?: RequestOptions,
  ): Promise<Prompt> {
    return (await this.#load()).update(params, options);
  }

  /**
   * Deletes a prompt: every version, or those with the given version or label; drops it from the cache.
   * @throws {@link SvcAPIError} when the request fails.
   */
  async delete(
    name: string,
    params: { version?: number; label?: string } = {},
    options?: RequestOptions,
  ): Promise<void> {
    return (await this.#load()).delete(name, params, options);
  }

  /** Fetches made and failed, the last failure, prompts cached and fallbacks returned. */
  health(): PromptHealth {
    return this.#loaded?.health() ?? { ...new RequestTally().health(), cached: 0, fallbacks: 0 };
  }
}
