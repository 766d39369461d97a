/**
 * A Map that holds at most `limit` entries: adding one more evicts the oldest entry and hands it to `onEvict`.
 * Runs that never end (a crashed process step, a callback LangChain never sent) cannot grow it forever.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #limit: number;
  readonly #onEvict: (key: K, value: V) => void;

  constructor(limit: number, onEvict: (key: K, value: V) => void = () => {}) {
    this.#limit = Math.max(1, Math.floor(limit));
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Stores `value` as the newest entry, evicting the oldest ones beyond the limit. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      const evicted = this.#entries.get(oldest.value) as V;
      this.#entries.delete(oldest.value);
      this.#onEvict(oldest.value, evicted);
    }
  }

  /** Removes and returns the entry for `key`. */
  take(key: K): V | undefined {
    const value = this.#entries.get(key);
    this.#entries.delete(key);
    return value;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }
}
