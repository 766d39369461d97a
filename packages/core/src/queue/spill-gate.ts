import type { SpillCounts, SpillReport } from "../spill/spill.js";
import type { DropReason } from "./delivery-log.js";
import type { DeliveryStats } from "./delivery-stats.js";
import type { FlushWaiters } from "./flush-waiters.js";
import type { Entry, ItemBuffer } from "./item-buffer.js";

/** A spill directory as the queue sees it (the core's `Spill`). */
export interface QueueSpill<T> {
  /** Connects the spill to its queue, which counts what it reports; sending spilled batches again starts. */
  attach(report: SpillReport): void;
  /** Writes a whole batch (or counts it as dropped for `why`; `detail` says why it was not sent); never rejects. */
  write(items: T[], why: DropReason, detail?: string): Promise<void>;
  /** The server accepted a live batch: spilled batches may be sent again. */
  serverAnswered(): void;
  /** Spilled, replayed and on-disk counts for `health()`. */
  counts(): SpillCounts;
  /** Stops sending again and says what is left on disk. */
  close(): Promise<void>;
}

/**
 * Where the queue meets its spill directory: when the queue is full, the oldest waiting batch goes to disk
 * instead of the new item being dropped; when a shutdown ends with items undelivered, they go to disk instead of
 * being dropped. A spill directory does not shorten a shutdown: it waits by the same rule as without one (the
 * server's answers decide, see `BatchQueue.flush`), so a server that answers in time still receives what it holds;
 * only what is left when the wait ends is written.
 */
export class SpillGate<T> {
  /** Items and bytes on their way to disk: held in memory until written, within the queue's own bounds again. */
  #writing = { items: 0, bytes: 0 };
  readonly #pending = new Set<Promise<void>>();

  /** The gate of a queue with a spill directory; undefined without one. */
  static of<T>(
    options: {
      spill?: QueueSpill<T> | undefined;
      maxBatchItems: number;
      maxBatchBytes: number;
      maxQueueItems: number;
      maxQueueBytes: number;
    },
    buffer: ItemBuffer<T>,
    waiters: FlushWaiters,
    stats: DeliveryStats,
    report: Omit<SpillReport, "counted">,
  ): SpillGate<T> | undefined {
    const counted = (figure: "spilled" | "replayed", count: number) => stats[figure](count);
    return options.spill && new SpillGate(options.spill, buffer, waiters, options, { ...report, counted });
  }

  constructor(
    readonly spill: QueueSpill<T>,
    private readonly buffer: ItemBuffer<T>,
    private readonly waiters: FlushWaiters,
    private readonly batch: {
      maxBatchItems: number;
      maxBatchBytes: number;
      maxQueueItems: number;
      maxQueueBytes: number;
    },
    report: SpillReport,
  ) {
    spill.attach(report);
  }

  /**
   * The queue is full: writes the oldest waiting batches to disk until `fits()` says the new item fits, and
   * returns whether it does. False (the item is dropped, as without a spill) when nothing waits in memory, or when
   * the batches still being written fill the queue's bounds a second time (a disk slower than the items come).
   */
  makeRoom(fits: () => boolean): boolean {
    const { maxBatchItems, maxBatchBytes, maxQueueItems, maxQueueBytes } = this.batch;
    const writing = this.#writing;
    while (!fits()) {
      if (this.buffer.length === 0 || writing.items >= maxQueueItems || writing.bytes >= maxQueueBytes) return false;
      const entries = this.buffer.take(maxBatchItems, maxBatchBytes);
      let bytes = 0;
      for (const entry of entries) bytes += entry.bytes;
      writing.items += entries.length;
      writing.bytes += bytes;
      const items = entries.map((e) => e.item);
      this.#track(this.spill.write(items, "queueFull"), entries).finally(() => {
        writing.items -= entries.length;
        writing.bytes -= bytes;
      });
    }
    return true;
  }

  /**
   * A shutdown ends with `left` items undelivered (its wait is over: the same wait as without a spill directory):
   * writes them to disk in batches, `ended` saying what ended the wait, and waits for the writes of a full queue
   * still under way. Returns how many items it settled (written, or counted as dropped by the spill).
   */
  async atShutdown(left: T[], ended: string): Promise<number> {
    const writes: Promise<void>[] = [];
    const { maxBatchItems } = this.batch;
    for (let at = 0; at < left.length; at += maxBatchItems)
      writes.push(this.spill.write(left.slice(at, at + maxBatchItems), "shutdown", ended));
    await Promise.all([...writes, ...this.#pending]);
    return left.length;
  }

  #track(writing: Promise<void>, entries: Entry<T>[]): Promise<void> {
    const done = writing.then(() => this.waiters.settle(entries));
    this.#pending.add(done);
    return done.finally(() => this.#pending.delete(done));
  }
}
