import { describeError, RepeatLog } from "@svc/core";
import { SvcAPITimeoutError } from "../api/errors.js";
import type { SvcApiClient } from "../api/generated/client.js";
import type { ChatMessage, Prompt } from "../api/generated/types.js";
import type { RequestOptions } from "../api/request-runtime.js";
import { type PromptHealth, RequestTally } from "../health.js";
import { DEFAULT_PROMPT_CACHE_TTL_SECONDS, fetchAlone, PromptCache, type WaitLimit } from "./prompt-cache.js";
import {
  ChatMessageType,
  ChatPromptClient,
  type ChatPromptData,
  type CreateChatPromptBodyWithPlaceholders,
  type CreateTextPromptBody,
  type PromptClient,
  TextPromptClient,
  type TextPromptData,
} from "./prompt-clients.js";

/** Options of {@link PromptManager.get}. */
export interface PromptGetOptions {
  /** A version number. Without version and label, the version labelled `production`. */
  version?: number;
  /** A label, e.g. `staging`. */
  label?: string;
  /** The expected type; picks the fallback's type and the return type. */
  type?: "text" | "chat";
  /** How long a fetched prompt is served without a refresh, in seconds; 0 disables the cache. @defaultValue 60 */
  cacheTtlSeconds?: number;
  /** Used when the prompt cannot be fetched and nothing is cached; the result has `isFallback: true`. */
  fallback?: string | ChatMessage[];
  /** Retries of the fetch. @defaultValue the REST client's (2) */
  maxRetries?: number;
  /**
   * Time limit of each fetch attempt, in milliseconds; with a `fallback`, of this call's whole wait, retries and
   * shared fetches included. @defaultValue 10000
   */
  fetchTimeoutMs?: number;
}

/** Options of {@link PromptManager.get} for a text prompt. */
export type TextPromptGetOptions = PromptGetOptions & { type: "text"; fallback?: string };
/** Options of {@link PromptManager.get} for a chat prompt. */
export type ChatPromptGetOptions = PromptGetOptions & { type: "chat"; fallback?: ChatMessage[] };

/** Default time limit of a prompt fetch attempt, in milliseconds. */
export const DEFAULT_PROMPT_FETCH_TIMEOUT_MS = 10_000;

/** Fetches, caches, creates and relabels prompts. */
export class PromptManager {
  readonly #cache = new PromptCache();
  /** Failed fetches repeat on every call while the server is down: the first line, then counts. */
  readonly #repeats = new RepeatLog();
  readonly #requests = new RequestTally();
  #fallbacks = 0;

  /** Created by {@link SvcClient}; use `svc.prompt`. */
  constructor(private readonly api: SvcApiClient) {}

  /**
   * Gets a prompt, from the cache when fresh. An expired entry is returned at once while one background
   * refresh runs. When nothing is cached and the fetch fails, `fallback` is returned if given.
   * @throws {@link SvcAPIError} (for example {@link NotFoundError}) when the fetch fails and there is no fallback.
   */
  get(name: string, options: ChatPromptGetOptions): Promise<ChatPromptClient>;
  get(name: string, options: TextPromptGetOptions): Promise<TextPromptClient>;
  get(name: string, options?: PromptGetOptions): Promise<PromptClient>;
  async get(name: string, options: PromptGetOptions = {}): Promise<PromptClient> {
    const ttl = options.cacheTtlSeconds ?? DEFAULT_PROMPT_CACHE_TTL_SECONDS;
    const key = PromptCache.key(name, options.version, options.label);
    const fetch = (signal: AbortSignal) => this.#fetch(name, options, signal);

    if (ttl > 0) {
      const cached = this.#cache.lookup(key);
      if (cached.state === "fresh") return cached.value;
      if (cached.state === "stale") {
        this.#cache.once(key, fetch, ttl).catch((error: unknown) => {
          const kind = `PromptManager: refresh of prompt "${name}" failed, serving the cached version`;
          this.#repeats.warn(kind, `${kind}: ${describeError(error)}`);
        });
        return cached.value;
      }
    }
    // With a fallback, this call waits its own time, whoever started the fetch.
    const limit = options.fallback === undefined ? undefined : waitLimit(name, options);
    try {
      return await (ttl > 0 ? this.#cache.once(key, fetch, ttl, limit) : fetchAlone(fetch, limit));
    } catch (error) {
      if (options.fallback === undefined) throw error;
      const kind = `PromptManager: prompt "${name}" could not be fetched, using the fallback`;
      this.#repeats.warn(kind, `${kind}: ${describeError(error)}`);
      this.#fallbacks++;
      return fallbackClient(name, options);
    }
  }

  /** Creates a prompt version; chat items without a `type` are messages. @throws {@link SvcAPIError} on failure. */
  async create(body: CreateChatPromptBodyWithPlaceholders, options?: RequestOptions): Promise<ChatPromptClient>;
  async create(body: CreateTextPromptBody, options?: RequestOptions): Promise<TextPromptClient>;
  async create(
    body: CreateChatPromptBodyWithPlaceholders | CreateTextPromptBody,
    options?: RequestOptions,
  ): Promise<PromptClient> {
    const request =
      body.type === "chat"
        ? {
            ...body,
            prompt: body.prompt.map((item) =>
              "type" in item && item.type === ChatMessageType.Placeholder
                ? { type: ChatMessageType.Placeholder, name: item.name }
                : { ...(item as ChatMessage), type: ChatMessageType.ChatMessage },
            ),
          }
        : { ...body, type: body.type ?? "text" };
    const created = await this.api.prompts.create(request as Parameters<SvcApiClient["prompts"]["create"]>[0], options);
    this.#cache.invalidate(body.name);
    return toClient(created);
  }

  /** Sets the labels of a prompt version, dropping the prompt from the cache. @throws {@link SvcAPIError} on failure. */
  async update(
    params: { name: string; version: number; newLabels: string[] },
    options?: RequestOptions,
  ): Promise<Prompt> {
    const { name, version, newLabels } = params;
    const updated = await this.api.promptVersion.update(name, version, { newLabels }, options);
    this.#cache.invalidate(name);
    return updated;
  }

  /**
   * Deletes a prompt's versions (all, or those with the given version or label) and drops it from the cache.
   * @throws {@link SvcAPIError} when the request fails.
   */
  async delete(
    name: string,
    params: { version?: number; label?: string } = {},
    options?: RequestOptions,
  ): Promise<void> {
    await this.api.prompts.delete(name, { version: params.version, label: params.label }, options);
    this.#cache.invalidate(name);
  }

  /** Fetches made and failed, the last failure, prompts cached and fallbacks returned. */
  health(): PromptHealth {
    return { ...this.#requests.health(), cached: this.#cache.size, fallbacks: this.#fallbacks };
  }

  /** Fetches a prompt; `signal` aborts it once no caller waits for it any more. */
  async #fetch(name: string, options: PromptGetOptions, signal: AbortSignal): Promise<PromptClient> {
    const { maxRetries } = options;
    const requestOptions = { timeoutInSeconds: fetchTimeoutMs(options) / 1000, abortSignal: signal, maxRetries };
    let prompt: Prompt;
    try {
      prompt = await this.api.prompts.get(name, { version: options.version, label: options.label }, requestOptions);
    } catch (error) {
      this.#requests.failed(error);
      throw error;
    }
    this.#requests.succeeded();
    return toClient(prompt);
  }
}

function fetchTimeoutMs(options: PromptGetOptions): number {
  const value = options.fetchTimeoutMs;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : DEFAULT_PROMPT_FETCH_TIMEOUT_MS;
}

/** How long a call with a fallback waits for the prompt, retries included. */
function waitLimit(name: string, options: PromptGetOptions): WaitLimit {
  const ms = fetchTimeoutMs(options);
  return {
    ms,
    error: () => new SvcAPITimeoutError(`Timeout getting prompt "${name}": no prompt within ${ms} ms (fetchTimeoutMs)`),
  };
}

function toClient(prompt: Prompt): PromptClient {
  if (prompt.type === "chat" || Array.isArray(prompt.prompt)) return new ChatPromptClient(prompt as ChatPromptData);
  return new TextPromptClient(prompt as TextPromptData);
}

function fallbackClient(name: string, options: PromptGetOptions): PromptClient {
  const meta = {
    name,
    version: options.version ?? 0,
    labels: options.label === undefined ? [] : [options.label],
    config: {},
    tags: [],
  };
  if (options.type === "chat" && Array.isArray(options.fallback)) {
    const prompt = options.fallback.map((m) => ({ role: m.role, content: m.content, type: "chatmessage" as const }));
    return new ChatPromptClient({ ...meta, type: "chat", prompt }, true);
  }
  const text = typeof options.fallback === "string" ? options.fallback : JSON.stringify(options.fallback);
  return new TextPromptClient({ ...meta, type: "text", prompt: text }, true);
}
