import type { ChatMessage } from "./types.js";

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
   * Time limit of each fetch attempt, in milliseconds. With a `fallback`, it bounds this call's wait, retries
   * included, even when the call joins a fetch another call started: the fallback is returned by then at the latest.
   * @defaultValue 10000
   */
  fetchTimeoutMs?: number;
}

/** Options of {@link PromptManager.get} for a text prompt. */
export type TextPromptGetOptions = PromptGetOptions & { type: "text"; fallback?: string };
/** Options of {@link PromptManager.get} for a chat prompt. */
export type ChatPromptGetOptions = PromptGetOptions & { type: "chat"; fallback?: ChatMessage[] };

/** Default time limit of a prompt fetch attempt, in milliseconds. */
export const DEFAULT_PROMPT_FETCH_TIMEOUT_MS = 10_000;
