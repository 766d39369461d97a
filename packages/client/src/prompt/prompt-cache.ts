import type { PromptClient } from "./prompt-clients.js";

/** Default time a fetched prompt is served from the cache without a refresh, in seconds. */
export const DEFAULT_PROMPT_CACHE_TTL_SECONDS = 60;
/** Most prompts kept; the least recently used one goes first. */
const MAX_ENTRIES = 1000;
/**
 * Longest time a running fetch is shared, in milliseconds: longer than any fetch's own deadline, so a fetch still
 * running is lost (Cloudflare Workers never settle what an ended request left running); a later call starts its own.
 */
const MAX_SHARED_FETCH_MS = 60_000;

interface Entry {
  value: PromptClient;
  expiresAt: number;
}

/** A fetch under way, with the callers still waiting for it. */
interface Running {
  promise: Promise<PromptClient>;
  controller: AbortController;
  /** When the fetch started. */
  startedAt: number;
  /** Callers waiting; the fetch is aborted when the last one with a time limit gives up. */
  waiting: number;
  /** Stops sharing the fetch (it has settled, or it is being aborted). */
  detach: () => void;
}

/** Fetches a prompt; `signal` aborts it once no caller waits for it. */
type Fetch = (signal: AbortSignal) => Promise<PromptClient>;

/** How long one caller waits for a fetch, and the error it gets when that time has passed. */
export interface WaitLimit {
  ms: number;
  error: () => Error;
}

/** A bounded prompt cache keyed by name and version or label, with one in-flight fetch per key. */
export class PromptCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Running>();
  /** Counts invalidations, so a fetch that started before one does not store what it read. */
  #epoch = 0;

  /** The structured key of a prompt selector; no version and no label means the `production` label. */
  static key(name: string, version: number | undefined, label: string | undefined): string {
    return JSON.stringify([name, version ?? null, version === undefined ? (label ?? "production") : null]);
  }

  lookup(key: string): { state: "miss" } | { state: "fresh" | "stale"; value: PromptClient } {
    const entry = this.#entries.get(key);
    if (!entry) return { state: "miss" };
    this.#entries.delete(key); // re-insert: the Map's order is the recency order
    this.#entries.set(key, entry);
    return { state: entry.expiresAt > Date.now() ? "fresh" : "stale", value: entry.value };
  }

  /** Prompts held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Stores a fetched prompt, unless a prompt was invalidated since the fetch started (at `epoch`). */
  #set(key: string, value: PromptClient, ttlSeconds: number, epoch: number): void {
    if (epoch !== this.#epoch) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    while (this.#entries.size > MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /**
   * Runs `fetch` for the key and stores what it reads for `ttlSeconds`, or shares the fetch running. With a `limit`,
   * this caller stops waiting when it passes; the fetch is aborted once every caller has stopped waiting.
   */
  once(key: string, fetch: Fetch, ttlSeconds: number, limit?: WaitLimit): Promise<PromptClient> {
    let running = this.#inFlight.get(key);
    if (running && Date.now() - running.startedAt > MAX_SHARED_FETCH_MS) {
      running.detach();
      running = undefined;
    }
    if (!running) {
      const epoch = this.#epoch;
      const fetchAndStore: Fetch = async (signal) => {
        const value = await fetch(signal);
        this.#set(key, value, ttlSeconds, epoch);
        return value;
      };
      const started = startFetch(fetchAndStore, () => {
        if (this.#inFlight.get(key) === started) this.#inFlight.delete(key);
      });
      running = started;
      this.#inFlight.set(key, started);
    }
    return waitFor(running, limit);
  }

  /** Drops every entry of the named prompt; fetches already running for it are neither shared nor stored. */
  invalidate(name: string): void {
    this.#epoch += 1;
    for (const key of this.#entries.keys()) if (nameOf(key) === name) this.#entries.delete(key);
    for (const key of this.#inFlight.keys()) if (nameOf(key) === name) this.#inFlight.delete(key);
  }
}

/** Runs `fetch` for one caller, unshared, aborting it when the caller's `limit` passes. */
export function fetchAlone(fetch: Fetch, limit?: WaitLimit): Promise<PromptClient> {
  return waitFor(
    startFetch(fetch, () => {}),
    limit,
  );
}

/** The prompt name of a {@link PromptCache.key}. */
function nameOf(key: string): string {
  return (JSON.parse(key) as [string])[0];
}

function startFetch(fetch: Fetch, done: () => void): Running {
  const controller = new AbortController();
  let started: Promise<PromptClient>;
  try {
    started = fetch(controller.signal);
  } catch (error) {
    started = Promise.reject(error);
  }
  const promise = started.finally(done);
  return { promise, controller, startedAt: Date.now(), waiting: 0, detach: done };
}

/** One caller's wait for a running fetch: until it settles, or until the caller's limit passes. */
function waitFor(running: Running, limit: WaitLimit | undefined): Promise<PromptClient> {
  running.waiting += 1;
  if (limit === undefined) return running.promise;
  return new Promise<PromptClient>((resolve, reject) => {
    const timer = setTimeout(() => {
      running.waiting -= 1;
      if (running.waiting === 0) {
        // Nobody waits any more: a later call starts a new fetch instead of joining this aborted one.
        running.detach();
        running.controller.abort();
      }
      reject(limit.error());
    }, limit.ms);
    running.promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
