/** An item waiting in a queue, with its estimated size and its place in the order of arrival. */
export interface Entry<T> {
  readonly item: T;
  readonly bytes: number;
  /** 1 for the first item ever queued, then one more for each. */
  readonly seq: number;
}

/**
 * The items waiting to be sent, in order, with their total estimated size. Held as parallel arrays of items, sizes
 * and sequence numbers, so that queuing an item (on the application's path, for every span) allocates nothing of its
 * own; {@link Entry} objects are made when items are taken to be sent.
 */
export class ItemBuffer<T> {
  #items: T[] = [];
  #sizes: number[] = [];
  #seqs: number[] = [];
  #bytes = 0;
  #seq = 0;

  /** Items waiting. */
  get length(): number {
    return this.#items.length;
  }

  /** Estimated bytes of the items waiting. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Sequence number of the last item added (items ever added; grows only). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Adds an item at the end. */
  add(item: T, bytes: number): void {
    this.#items.push(item);
    this.#sizes.push(bytes);
    this.#seqs.push(++this.#seq);
    this.#bytes += bytes;
  }

  /** Takes the first items, at most `maxItems` and `maxBytes` (a first item larger than that is taken alone). */
  take(maxItems: number, maxBytes: number): Entry<T>[] {
    const sizes = this.#sizes;
    let count = 0;
    let bytes = 0;
    while (count < sizes.length) {
      const size = sizes[count] as number;
      if (count >= maxItems || (count > 0 && bytes + size > maxBytes)) break;
      count++;
      bytes += size;
    }
    this.#bytes -= bytes;
    return this.#takeFirst(count);
  }

  /** Puts entries taken earlier back at the front, to be sent first. */
  putBack(entries: readonly Entry<T>[]): void {
    this.#items.unshift(...entries.map((entry) => entry.item));
    this.#sizes.unshift(...entries.map((entry) => entry.bytes));
    this.#seqs.unshift(...entries.map((entry) => entry.seq));
    for (const entry of entries) this.#bytes += entry.bytes;
  }

  /** Takes every item. */
  takeAll(): Entry<T>[] {
    this.#bytes = 0;
    return this.#takeFirst(this.#items.length);
  }

  #takeFirst(count: number): Entry<T>[] {
    const items = this.#items.splice(0, count);
    const sizes = this.#sizes.splice(0, count);
    const seqs = this.#seqs.splice(0, count);
    const out: Entry<T>[] = new Array(count);
    for (let i = 0; i < count; i++) out[i] = { item: items[i] as T, bytes: sizes[i] as number, seq: seqs[i] as number };
    return out;
  }
}
