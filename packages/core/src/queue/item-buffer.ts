// The items waiting in a queue, in order of arrival, with their total estimated size.

/** An item waiting, with its estimated size and its place in the order of arrival (1 for the first ever queued). */
export interface Entry<T> {
  readonly item: T;
  readonly bytes: number;
  readonly seq: number;
}

export class ItemBuffer<T> {
  #entries: Entry<T>[] = [];
  #bytes = 0;
  #seq = 0;

  get length(): number {
    return this.#entries.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Sequence number of the last item added (items ever added; grows only). */
  get lastSeq(): number {
    return this.#seq;
  }

  add(item: T, bytes: number): void {
    this.#entries.push({ item, bytes, seq: ++this.#seq });
    this.#bytes += bytes;
  }

  /** Takes the first items, at most `maxItems` and `maxBytes` (a first item larger than that is taken alone). */
  take(maxItems: number, maxBytes: number): Entry<T>[] {
    let count = 0;
    let bytes = 0;
    for (const entry of this.#entries) {
      if (count >= maxItems || (count > 0 && bytes + entry.bytes > maxBytes)) break;
      count++;
      bytes += entry.bytes;
    }
    this.#bytes -= bytes;
    return this.#entries.splice(0, count);
  }

  /** Puts entries taken earlier back at the front, to be sent first. */
  putBack(entries: readonly Entry<T>[]): void {
    this.#entries.unshift(...entries);
    for (const entry of entries) this.#bytes += entry.bytes;
  }
}
