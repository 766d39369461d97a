import { settleWithin } from "../lifecycle/settle-within.js";
import type { SpillCounts, SpillReport } from "../spill/spill.js";
import type { DropReason } from "./delivery-log.js";
import type { DeliveryStats } from "./delivery-stats.js";
import type { FlushWaiters } from "./flush-waiters.js";
import type { Entry, ItemBuffer } from "./item-buffer.js";
import type { SendOutcome } from "./outcome.js";

/** A spill directory as the queue sees it (the core's `Spill`). */
export interface QueueSpill<T> {
  /** Connects the spill to its queue, which counts what it reports; sending spilled batches again starts. */
  attach(report: SpillReport): void;
  /** Writes a whole batch (or counts it as dropped for `why`); never rejects. */
  write(items: T[], why: DropReason): Promise<void>;
  /** The server accepted a live batch: spilled batches may be sent again. */
  serverAnswered(): void;
  /** Spilled, replayed and on-disk counts for `health()`. */
  counts(): SpillCounts;
  /** Stops sending again and says what is left on disk. */
  close(): Promise<void>;
}

/** A send as a shutdown finds it: its items, and what became of it if it ended after the queue closed. */
export interface ClosingSend<T> {
  batch: Entry<T>[];
  outcome?: SendOutcome<T>;
}

/**
 * How long a shutdown waits for a server that is failing when there is a spill directory: what is held is written to
 * disk soon after, within the grace period a container gets after SIGTERM (30 s on Kubernetes), and sent from there.
 */
export const SPILL_SHUTDOWN_WAIT_MS = 2_000;

/**
 * Where the queue meets its spill directory: when the queue is full, the oldest waiting batch goes to disk
 * instead of the new item being dropped; when a shutdown ends with items undelivered, they go to disk instead of
 * being dropped.
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
    private readonly report: SpillReport,
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

  /** The deadline of a shutdown: `deadline`, or {@link SPILL_SHUTDOWN_WAIT_MS} from now while the server fails. */
  shutdownDeadline(deadline: number, failing: boolean): number {
    return failing ? Math.min(deadline, Date.now() + SPILL_SHUTDOWN_WAIT_MS) : deadline;
  }

  /**
   * A shutdown ends with `held` items waiting and `sends` aborted: waits up to `graceMs` for those sends to end,
   * then writes to disk everything the server did not accept. Returns how many items are settled: written or
   * counted by the spill, or delivered by the aborted sends after all (recorded as delivered).
   */
  async atShutdown(
    held: Entry<T>[],
    sends: ReadonlyMap<Promise<void>, ClosingSend<T>>,
    graceMs: number,
  ): Promise<number> {
    // Taken now: a send leaves the queue's map as it ends.
    const aborted = [...sends.values()];
    await settleWithin(() => Promise.allSettled([...sends.keys()]), { timeoutMs: graceMs });
    let delivered = 0;
    const unsent: T[] = held.map((e) => e.item);
    for (const send of aborted) {
      const outcome = send.outcome;
      if (outcome === undefined) unsent.push(...send.batch.map((e) => e.item));
      else {
        delivered += outcome.delivered;
        if (outcome.retry) unsent.push(...outcome.retry.items);
      }
    }
    const writes: Promise<void>[] = [];
    const { maxBatchItems } = this.batch;
    for (let at = 0; at < unsent.length; at += maxBatchItems)
      writes.push(this.spill.write(unsent.slice(at, at + maxBatchItems), "shutdown"));
    await Promise.all([...writes, ...this.#pending]);
    if (delivered > 0) this.report.record({ delivered });
    return unsent.length + delivered;
  }

  #track(writing: Promise<void>, entries: Entry<T>[]): Promise<void> {
    const done = writing.then(() => this.waiters.settle(entries));
    this.#pending.add(done);
    return done.finally(() => this.#pending.delete(done));
  }
}
