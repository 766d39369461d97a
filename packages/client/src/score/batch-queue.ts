import { getGlobalLogger, type RepeatLog } from "@svc/tracing";

/** Settings of a {@link BatchQueue}. */
export interface BatchQueueConfig {
  /** Queue length that starts a flush. */
  flushAt: number;
  /** Longest time an item waits before a flush, in milliseconds. */
  flushIntervalMs: number;
  /** Most items per call of `send`. */
  maxBatchSize: number;
  /** Most items waiting; further items are dropped. */
  maxQueueSize: number;
  /** Names the owner in log lines, e.g. `ScoreManager`. */
  owner: string;
  /** What an item is called in log lines, e.g. `score`. */
  itemName: string;
}

/**
 * Collects items and hands them to `send` in batches, on a size threshold or a timer.
 * `send` must settle without rejecting; it logs its own failures.
 * @internal
 */
export class BatchQueue<T> {
  readonly #inFlight = new Set<Promise<void>>();
  #queue: T[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pending = 0;
  #flushScheduled = false;

  /** Drops are logged through `repeats`: the first at once, the others as a count when the owner reports. */
  constructor(
    private readonly config: BatchQueueConfig,
    private readonly send: (batch: T[]) => Promise<void>,
    private readonly repeats: RepeatLog,
  ) {}

  /**
   * Adds an item. At the threshold a flush runs once the current task yields, so a burst of items fills
   * whole batches; below it a timer makes sure one runs. Returns false when the item was dropped because
   * the items waiting or being sent reached the cap.
   */
  push(item: T): boolean {
    if (this.#pending >= this.config.maxQueueSize) {
      this.#drop();
      return false;
    }
    this.#queue.push(item);
    this.#pending += 1;
    if (this.#queue.length >= this.config.flushAt) this.#scheduleFlush();
    else this.#arm();
    return true;
  }

  /** Sends every item queued before this call; resolves when those sends (and any already running) settle. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const items = this.#queue.splice(0);
    for (let start = 0; start < items.length; start += this.config.maxBatchSize) {
      const batch = items.slice(start, start + this.config.maxBatchSize);
      const sending: Promise<void> = this.#sendSafely(batch).finally(() => {
        this.#inFlight.delete(sending);
        this.#pending -= batch.length;
      });
      this.#inFlight.add(sending);
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  async #sendSafely(batch: T[]): Promise<void> {
    try {
      await this.send(batch);
    } catch (error) {
      getGlobalLogger().error(
        `${this.config.owner}: ${batch.length} ${this.config.itemName}s lost: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      void this.flush();
    });
  }

  #arm(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.config.flushIntervalMs);
    // A pending flush must not keep a server process alive.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #drop(): void {
    const { owner, itemName, maxQueueSize } = this.config;
    const kind = `${owner}: queue full, ${itemName} dropped`;
    this.repeats.error(kind, `${kind} (${maxQueueSize} ${itemName}s waiting or being sent); further drops are counted`);
  }
}
