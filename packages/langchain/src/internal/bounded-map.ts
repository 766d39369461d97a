/**
 * A Map that holds at most `limit` entries: adding one more evicts the oldest entry and hands it to `onEvict`.
 * Runs that never end (a crashed process step, a callback LangChain never sent) cannot grow it forever.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #limit: number;
  readonly #onEvict: (key: K, value: V) => void;

  constructor(limit: number, onEvict: (key: K, value: V) => void = () => {}) {
    super();
    this.#limit = Math.max(1, Math.floor(limit));
    this.#onEvict = onEvict;
  }

  /** Stores `value` as the newest entry, evicting the oldest ones beyond the limit. */
  override set(key: K, value: V): this {
    this.delete(key);
    super.set(key, value);
    for (const [oldest, evicted] of this) {
      if (this.size <= this.#limit) break;
      this.delete(oldest);
      this.#onEvict(oldest, evicted);
    }
    return this;
  }

  /** Removes and returns the entry for `key`. */
  take(key: K): V | undefined {
    const value = this.get(key);
    this.delete(key);
    return value;
  }
}
