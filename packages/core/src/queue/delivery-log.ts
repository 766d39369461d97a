// What became of a queue's items, counted once (for `health()` and the metrics) and told in log lines: one when a
// fault starts (what it is, what becomes of the data), a count per interval while it lasts, one once the backlog
// held through it is sent (delivered late, lost); drops; how long a shutdown waits.
import { counted } from "../log/describe.js";
import { getGlobalLogger } from "../log/logger.js";
import { RepeatLog } from "../log/repeat-log.js";
import { LOST_SEND_GRACE_MS } from "./flush-wait.js";
import { type DeliveryHealth, type DropReason, deliveryCounts, type Fault, type Gauges } from "./health.js";

const REASON_TEXT: Record<DropReason, string> = {
  queueFull: "the queue is full",
  tooLarge: "too large to send",
  rejected: "rejected by the server",
  auth: "the server refused the keys",
  shutdown: "not delivered before shutdown",
  sampledOut: "sampled out",
  failed: "could not be sent",
  spillFull: "the spill directory is full",
  spillExpired: "older than the spill directory's age bound",
};

const STILL_FAILING_EVERY_MS = 10_000;

/** `1.5 s`: milliseconds as seconds, to a tenth. */
export function inSeconds(ms: number): string {
  return `${Math.round(Math.max(0, ms) / 100) / 10} s`;
}

/** What ended a shutdown's wait, for the line that counts what it dropped. */
export function whatEnded(unanswered: { windowMs: number } | undefined): string {
  return unanswered
    ? `the server answered no request within one request's timeout (${inSeconds(unanswered.windowMs)}), so shutdown() stopped waiting before its deadline`
    : "the shutdown deadline passed before they could be delivered";
}

/** A fault under way; `recovery` once the server accepts items again: how many waited then, how many settled since. */
interface Outage {
  since: number;
  fault: Fault;
  failedAttempts: number;
  lost: number;
  deliveredLate: number;
  recovery: { backlog: number; settled: number } | undefined;
}

/**
 * A server that fails and recovers again and again gets the start and recovery lines in full once per interval,
 * then counts. Drops are logged the first time per cause, then as counts.
 */
export class DeliveryLog {
  readonly counts = deliveryCounts();
  /** The last failed request, retried or given up on. */
  lastError: DeliveryHealth["lastError"];
  #lastHint: string | undefined;
  /** When the server last accepted items (epoch ms), written as ISO 8601 only when `health()` is read. */
  #lastSuccessAt: number | undefined;
  readonly #drops = new RepeatLog();
  readonly #lines = new RepeatLog();
  #outage: Outage | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Set while a shutdown waits: until when at most, and why that long. */
  #closing: { until: number; why: string } | undefined;

  constructor(
    private readonly owner: string,
    private readonly items: string,
    private readonly waiting: () => number,
    /** Whether what a shutdown leaves, and what the queue's bounds push out, goes to a spill directory. */
    private readonly spills = false,
  ) {}

  /** Keeps a failed attempt as the last error of `health()`. */
  failed({ kind, status, code, host, description, hint }: Fault): void {
    this.lastError = { kind, status, code, host, description, at: new Date().toISOString() };
    this.#lastHint = hint;
  }

  /** The last failure and what to do about it, as the end of a drop line (`; last failure: ...`), or "". */
  lastFailureText(): string {
    const error = this.lastError;
    return error ? `; last failure: ${error.description}${this.#lastHint ? `. ${this.#lastHint}` : ""}` : "";
  }

  /** The figures, with what the queue holds now. */
  health(held: Gauges & { shutdown: boolean }): DeliveryHealth {
    const { counts, lastError } = this;
    return {
      ...held,
      ...counts,
      dropped: { ...counts.dropped },
      lastError,
      lastSuccessAt: this.#lastSuccessAt === undefined ? undefined : new Date(this.#lastSuccessAt).toISOString(),
    };
  }

  /** An attempt failed and its items wait for another one. */
  retrying(fault: Fault, count: number, delayMs: number): void {
    this.counts.retries += 1;
    this.failed(fault);
    const outage = this.#outage;
    if (outage !== undefined) {
      // Failing again while the backlog drains is the same fault going on.
      outage.failedAttempts += 1;
      outage.fault = fault;
      outage.recovery = undefined;
      return;
    }
    this.#outage = { since: Date.now(), fault, failedAttempts: 1, lost: 0, deliveredLate: 0, recovery: undefined };
    const kind = `${this.owner}: cannot deliver ${this.items}`;
    this.#lines.warn(
      kind,
      `${kind}: ${fault.description}. ${this.#fate(count, delayMs)}${fault.hint ? ` ${fault.hint}` : ""}`,
    );
    this.#arm();
  }

  delivered(count: number): void {
    this.counts.sent += count;
    if (count > 0) this.#lastSuccessAt = Date.now();
    const outage = this.#outage;
    if (outage === undefined || count <= 0) return;
    outage.deliveredLate += count;
    // What was waiting besides these items, and these items.
    outage.recovery ??= { backlog: this.waiting() + count, settled: 0 };
    outage.recovery.settled += count;
    this.#recoveredWhenDrained();
  }

  /**
   * Items given up on: error level, the first time per cause in full, then as counts; no line without `detail` (the
   * sender said so in its own words). Items sampled out are left out by the user's setting, not lost: debug level,
   * and no part of a fault's count.
   */
  dropped(reason: DropReason, count: number, detail?: string): void {
    this.counts.dropped[reason] += count;
    if (count <= 0) return;
    if (detail !== undefined) {
      const kind = `${this.owner}: ${this.items} dropped, ${REASON_TEXT[reason]}`;
      const level = reason === "sampledOut" ? "debug" : "error";
      this.#drops[level](kind, `${kind}: ${this.#count(count)}: ${detail}`, { count, unit: this.items });
    }
    if (detail === undefined || reason !== "sampledOut") this.#lost(count);
  }

  #lost(count: number): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    outage.lost += count;
    if (outage.recovery) outage.recovery.settled += count;
    this.#recoveredWhenDrained();
  }

  /**
   * A shutdown starts with `held` items: it waits until `until` at most (epoch ms), the `deadline` or, while the
   * server has not answered, the end of one request's timeout. Said at once in one line while the server fails or
   * after a flush gave up on it (with the last `failure`), and else by the first failure during the shutdown.
   */
  shutdownWait(wait: { held: number; deadline: number; until: number; failing: boolean; givenUp: boolean }): void {
    const { held, deadline, until, failing, givenUp } = wait;
    const failure = this.lastError?.description;
    const why =
      until < deadline
        ? `one request's timeout; up to ${inSeconds(deadline - Date.now())}, the flushTimeout, once the server answers`
        : "flushTimeout";
    this.#closing = { until, why };
    if (!failing && !givenUp) return;
    const reason = failing
      ? `the last attempt failed${failure ? ` (${failure})` : ""}`
      : "an earlier flush gave up on the server without an answer";
    getGlobalLogger().warn(
      `${this.owner}: ${this.#waitsAtMost(this.#closing, held)}, since ${reason}; what is not delivered by then is ${this.#then}.`,
    );
  }

  /** What happens to the items of a failed attempt: retried until the queue fills up, or until shutdown() ends. */
  #fate(count: number, delayMs: number): string {
    const closing = this.#closing;
    const waiting = this.#count(this.waiting());
    if (closing === undefined)
      return (
        `${this.#count(count)} kept and retried (next attempt in ${inSeconds(delayMs)}, ${waiting} ` +
        (this.spills
          ? "waiting); when the queue fills up, the oldest are written to the spill directory."
          : "waiting); they are dropped only when the queue fills up.")
      );
    if (closing.until - Date.now() < 50)
      return `shutdown() stops waiting now (${closing.why}): ${waiting} not delivered are ${this.#then}.`;
    return `${this.#waitsAtMost(closing, this.waiting())}, retrying meanwhile; what is not delivered by then is ${this.#then}.`;
  }

  /** What becomes of what a shutdown does not deliver. */
  get #then(): string {
    return this.spills ? "written to the spill directory" : "dropped";
  }

  /** `shutdown() waits at most 10 s (flushTimeout) to deliver 1 span`. */
  #waitsAtMost({ until, why }: { until: number; why: string }, held: number): string {
    return `shutdown() waits at most ${inSeconds(until - Date.now())} (${why}) to deliver ${this.#count(held)}`;
  }

  /** Items of sends still unsettled `LOST_SEND_GRACE_MS` past their deadline are queued again. */
  resent(count: number): void {
    getGlobalLogger().warn(
      `${this.owner}: ${this.#count(count)} of sends still unsettled ${LOST_SEND_GRACE_MS / 1000} s past their deadline (the request's timeout) are sent again; a runtime that ends the request that started a send (Cloudflare Workers) leaves it unsettled`,
    );
  }

  /** Logs the counts not yet reported (with `dueOnly`, those whose summary interval has passed). */
  report(options: { dueOnly?: boolean } = {}): void {
    this.#drops.report(options);
    this.#lines.report(options);
  }

  /** Ends the fault lines (the component has shut down): a recovery under way is reported, the timer stopped. */
  close(): void {
    if (this.#outage?.recovery) this.#recovered();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.report();
  }

  #count(count: number): string {
    return counted(count, this.items);
  }

  #recoveredWhenDrained(): void {
    const recovery = this.#outage?.recovery;
    if (recovery && recovery.settled >= recovery.backlog) this.#recovered();
  }

  #recovered(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    this.#outage = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const seconds = Math.round((Date.now() - outage.since) / 1000);
    const kind = `${this.owner}: delivery recovered`;
    this.#lines.info(
      kind,
      `${kind} after ${seconds} s: ${this.#count(outage.deliveredLate)} delivered late, ${outage.lost} lost.`,
    );
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const outage = this.#outage;
      if (outage === undefined) return;
      if (outage.recovery === undefined) {
        const seconds = Math.round((Date.now() - outage.since) / 1000);
        getGlobalLogger().warn(
          `${this.owner}: still cannot deliver ${this.items} after ${seconds} s (${outage.fault.description}): ` +
            `${outage.failedAttempts} failed attempt${outage.failedAttempts === 1 ? "" : "s"}, ${this.#count(this.waiting())} waiting, ` +
            `${outage.lost} dropped so far.`,
        );
      }
      this.#arm();
    }, STILL_FAILING_EVERY_MS);
    (this.#timer as { unref?: () => void }).unref?.();
  }
}
