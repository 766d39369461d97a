import { settleWithin } from "../lifecycle/settle-within.js";
import type { FlushResult } from "./batch-queue-options.js";
import type { Entry } from "./item-buffer.js";
import { type SendUnderWay, takeLost } from "./lost-sends.js";
import type { SpillGate } from "./spill-gate.js";
import { whatEnded } from "./unanswered-servers.js";

/**
 * What a queue's shutdown gives up on once its wait is over: the items still queued, those of sends the server did
 * not accept within `SENDS_GRACE_MS`, and those that a send answered after the queue closed asks to retry. Written to
 * the spill directory when the queue has one, else dropped; what is dropped is counted in one line that says what
 * ended the wait. The wait itself is the same with or without a spill directory (see `BatchQueue.flush`).
 */
export class ShutdownLeftovers<T> {
  readonly #items: T[] = [];

  constructor(
    private readonly queue: {
      /** The queue's spill directory, if it has one. */
      spill: SpillGate<T> | undefined;
      /** A send is no longer in flight. */
      release(send: SendUnderWay<Entry<T>[]>): void;
      /** Counts and logs items dropped at shutdown. */
      drop(count: number, detail: string): void;
      /** The last failure, as the end of a drop line (empty without one). */
      lastFailureText(): string;
    },
  ) {}

  /** Items given up on (a send answered after the queue closed asks to retry them: nothing is sent again). */
  add(items: readonly T[]): void {
    for (const item of items) this.#items.push(item);
  }

  /**
   * Ends a shutdown whose wait gave `result`: `queued` were taken out of the queue; the `sends` still under way get
   * `SENDS_GRACE_MS` for their answer (none once the server has answered nothing for a request's timeout: it will not
   * answer in the next moment) and are then aborted. Then writes or drops all that is left, and closes the spill.
   */
  async end(
    result: FlushResult,
    queued: Entry<T>[],
    sends: Map<Promise<void>, SendUnderWay<Entry<T>[]>>,
  ): Promise<void> {
    const { spill, release, drop, lastFailureText } = this.queue;
    this.add(queued.map((e) => e.item));
    if (sends.size > 0) {
      if (!result.unanswered)
        await settleWithin(() => Promise.allSettled([...sends.keys()]), { timeoutMs: SENDS_GRACE_MS });
      for (const send of takeLost(sends, true)) {
        release(send);
        this.add(send.batch.map((e) => e.item));
      }
    }
    const left = this.#items.splice(0);
    const ended = whatEnded(result);
    // Spill hook: once the wait is over, what is left goes to disk, for this directory's next process.
    const spilled = (await spill?.atShutdown(left, ended)) ?? 0;
    if (left.length > spilled) drop(left.length - spilled, `${ended}${lastFailureText()}`);
    await spill?.spill.close();
  }
}

/**
 * How long shutdown, past its deadline, still waits for the sends under way before it aborts them: an answer within it
 * counts (a batch the server accepted is counted sent); a send that ignores its abort (user code) is left behind.
 */
export const SENDS_GRACE_MS = 250;
