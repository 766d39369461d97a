import { getGlobalLogger } from "../log/logger.js";
import { RepeatLog } from "../log/repeat-log.js";

/** Why items were given up on: the queue was full, an item too large, the server rejected them or the keys, they were still queued at shutdown, sampled out, or could not be sent. */
export type DropReason = "queueFull" | "tooLarge" | "rejected" | "auth" | "shutdown" | "sampledOut" | "failed";

/** Words for each reason in log lines. */
const REASON_TEXT: Record<DropReason, string> = {
  queueFull: "the queue is full",
  tooLarge: "too large to send",
  rejected: "rejected by the server",
  auth: "the server refused the keys",
  shutdown: "not delivered before shutdown",
  sampledOut: "sampled out",
  failed: "could not be sent",
};

/** What went wrong on a delivery attempt, in words a log line can carry (host, path, status or code). */
export interface Fault {
  /** `HTTP 503 from cloud.svc.dev POST /api/public/otel/v1/traces`, `ECONNREFUSED on POST 127.0.0.1:3000/...` */
  description: string;
  kind: string;
  status?: number;
  code?: string;
  host?: string;
}

const STILL_FAILING_EVERY_MS = 10_000;

/**
 * The log lines of one kind of delivery (spans, scores): one line when a fault starts (what it is and what
 * happens to the data), a count line per interval while it lasts, and one line when delivery recovers with how
 * much was delivered late and how much was lost; drops are logged the first time per cause, then as counts.
 */
export class DeliveryLog {
  readonly #drops = new RepeatLog();
  #faultSince: number | undefined;
  #fault: Fault | undefined;
  #failedAttempts = 0;
  #lostDuringFault = 0;
  #deliveredLate = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly owner: string,
    private readonly items: string,
    private readonly waiting: () => number,
  ) {}

  /** Whether a fault is going on. */
  get faulty(): boolean {
    return this.#faultSince !== undefined;
  }

  /** An attempt failed and its items wait for another one. */
  retrying(fault: Fault, count: number, delayMs: number): void {
    this.#failedAttempts += 1;
    this.#fault = fault;
    if (this.#faultSince !== undefined) return;
    this.#faultSince = Date.now();
    this.#deliveredLate = 0;
    this.#lostDuringFault = 0;
    getGlobalLogger().warn(
      `${this.owner}: cannot deliver ${this.items}: ${fault.description}. ${count} ${this.items} kept and retried ` +
        `(next attempt in ${Math.round(delayMs / 100) / 10} s, ${this.waiting()} ${this.items} waiting); ` +
        `they are dropped only when the queue fills up.`,
    );
    this.#arm();
  }

  /** Items reached the server. */
  delivered(count: number): void {
    if (this.#faultSince === undefined || count <= 0) return;
    this.#deliveredLate += count;
    const seconds = Math.round((Date.now() - this.#faultSince) / 1000);
    getGlobalLogger().info(
      `${this.owner}: delivery recovered after ${seconds} s: ${this.#deliveredLate} ${this.items} delivered late, ` +
        `${this.#lostDuringFault} lost.`,
    );
    this.#faultSince = undefined;
    this.#failedAttempts = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Items given up on: error level, the first time per cause in full, then as counts. */
  dropped(reason: DropReason, count: number, detail: string): void {
    if (count <= 0) return;
    if (this.#faultSince !== undefined) this.#lostDuringFault += count;
    const kind = `${this.owner}: ${this.items} dropped, ${REASON_TEXT[reason]}`;
    this.#drops.error(kind, `${kind}: ${count} ${this.items}: ${detail}`, { count, unit: this.items });
  }

  /** Logs the drop counts not yet reported (with `dueOnly`, those whose summary interval has passed). */
  report(options: { dueOnly?: boolean } = {}): void {
    this.#drops.report(options);
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#faultSince === undefined) return;
      const seconds = Math.round((Date.now() - this.#faultSince) / 1000);
      getGlobalLogger().warn(
        `${this.owner}: still cannot deliver ${this.items} after ${seconds} s (${this.#fault?.description}): ` +
          `${this.#failedAttempts} failed attempts, ${this.waiting()} ${this.items} waiting, ` +
          `${this.#lostDuringFault} dropped so far.`,
      );
      this.#arm();
    }, STILL_FAILING_EVERY_MS);
    (this.#timer as { unref?: () => void }).unref?.();
  }
}
