import { type DeliveryHealth, describeError } from "@svc/core";
import { SvcAPIError } from "./api/errors.js";

/** What a manager's requests to the server have done so far. */
export interface RequestHealth {
  /** Requests made (each call, its retries included, counts once). */
  requests: number;
  /** Requests that failed. */
  failures: number;
  /** The last failure: one line (status, host and path, no secret), the status when there was one, and when. */
  lastError: { description: string; status?: number; at: string } | undefined;
}

/** What `svc.prompt` has done: its fetches, the prompts cached, and the fallbacks it returned. */
export interface PromptHealth extends RequestHealth {
  /** Prompts held in the cache. */
  cached: number;
  /** Calls of `get()` answered with the given `fallback` because the fetch failed and nothing was cached. */
  fallbacks: number;
}

/** What `svc.media` has done: its media downloads, and the references it could not resolve. */
export interface MediaHealth extends RequestHealth {
  /** References left in place by `resolveReferences()` because their media could not be read. */
  unresolved: number;
}

/** What the client's managers have done so far: a plain object, cheap to read at any time. */
export interface SvcClientHealth {
  /** Score delivery: queued, in flight, sent, dropped by reason, retries, the last error. */
  score: DeliveryHealth;
  /** Prompt fetches, the cache and fallbacks. */
  prompt: PromptHealth;
  /** Media downloads of `media.resolveReferences()`. */
  media: MediaHealth;
}

/** Counts the requests of a manager and keeps its last failure. */
export class RequestTally {
  #requests = 0;
  #failures = 0;
  #lastError: RequestHealth["lastError"];

  /** A request succeeded. */
  succeeded(): void {
    this.#requests++;
  }

  /** A request failed with `error`. */
  failed(error: unknown): void {
    this.#requests++;
    this.#failures++;
    const status = error instanceof SvcAPIError ? error.statusCode : undefined;
    this.#lastError = {
      description: describeError(error),
      ...(status === undefined ? {} : { status }),
      at: new Date().toISOString(),
    };
  }

  /** The counts so far. */
  health(): RequestHealth {
    return { requests: this.#requests, failures: this.#failures, lastError: this.#lastError };
  }
}

/**
 * What to do when code loaded on first use cannot be loaded: a copy of the package lacks its file `dist/<chunk>-*`
 * (some deploy tools copy only the files an entry imports statically).
 */
export function missingChunkFix(chunk: string): string {
  return `the installed @svc/client lacks a file of its dist folder: reinstall it, and have the bundler or deploy tool keep the files it loads with import() (dist/${chunk}-*)`;
}
