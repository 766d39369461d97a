import type { DropReason, Fault } from "./delivery-log.js";

/** What a delivery queue (spans, or scores) has done so far: a plain object, cheap to read at any time. */
export interface DeliveryHealth {
  /** Items waiting to be sent (including those waiting out a failure). */
  queued: number;
  /** Estimated bytes of the items waiting. */
  queuedBytes: number;
  /** Items in requests under way. */
  inFlight: number;
  /** Items the server accepted. */
  sent: number;
  /** Items given up on, by reason. */
  dropped: Record<DropReason, number>;
  /** Failed attempts that were retried. */
  retries: number;
  /** The last failed request, retried or given up on: the kind of failure, its status or error code, the host, when (no secret). */
  lastError:
    | { kind: string; status?: number; code?: string; host?: string; description: string; at: string }
    | undefined;
  /** When the server last accepted items (ISO 8601). */
  lastSuccessAt: string | undefined;
  /** Whether the component was shut down. */
  shutdown: boolean;
  /** Items written to the spill directory by this process (0 without one). */
  spilled: number;
  /** Items sent again from the spill directory by this process and accepted (0 without one). */
  replayed: number;
  /** Items of this kind in the spill directory now, by every process that shares it (0 without one). */
  onDisk: number;
}

/** The counts of a queue that only grow: sent, dropped by reason, retries; and the last error and success. */
export class DeliveryStats {
  /** Sent, retried and dropped so far: they only grow, and the metrics keep them after the queue is gone. */
  readonly counts: DeliveryCounts = deliveryCounts();
  #lastError: DeliveryHealth["lastError"];
  #lastHint: string | undefined;
  #lastSuccessAt: number | undefined;

  /** Items the server accepted. */
  delivered(count: number): void {
    this.counts.sent += count;
    if (count > 0) this.#lastSuccessAt = Date.now();
  }

  /** Items given up on. */
  dropped(reason: DropReason, count: number): void {
    this.counts.dropped[reason] += count;
  }

  /** Items written to a spill directory. */
  spilled(count: number): void {
    this.counts.spilled += count;
  }

  /** Items sent again from a spill directory and accepted (counted as sent as well). */
  replayed(count: number): void {
    this.counts.replayed += count;
  }

  /** An attempt failed and is tried again. */
  retried(): void {
    this.counts.retries += 1;
  }

  /** Keeps a failed attempt as the last error of `health()`. */
  failed(fault: Fault): void {
    this.#lastError = {
      kind: fault.kind,
      status: fault.status,
      code: fault.code,
      host: fault.host,
      description: fault.description,
      at: new Date().toISOString(),
    };
    this.#lastHint = fault.hint;
  }

  /** The last failure and what to do about it, for a log line (`; last failure: ...`), or "" when none. */
  lastFailureText(): string {
    const error = this.#lastError;
    if (!error) return "";
    return `; last failure: ${error.description}${this.#lastHint ? `. ${this.#lastHint}` : ""}`;
  }

  /** The figures, with what the queue holds now. */
  health(held: {
    queued: number;
    queuedBytes: number;
    inFlight: number;
    shutdown: boolean;
    onDisk?: number;
  }): DeliveryHealth {
    return {
      onDisk: 0,
      ...held,
      spilled: this.counts.spilled,
      replayed: this.counts.replayed,
      sent: this.counts.sent,
      dropped: { ...this.counts.dropped },
      retries: this.counts.retries,
      lastError: this.#lastError,
      lastSuccessAt: this.#lastSuccessAt === undefined ? undefined : new Date(this.#lastSuccessAt).toISOString(),
    };
  }
}

/** The counts of a queue that only grow; the metrics keep them after the queue is gone. */
export interface DeliveryCounts {
  sent: number;
  retries: number;
  /** Items written to a spill directory, and sent again from one (absent in the counts of older copies). */
  spilled: number;
  replayed: number;
  dropped: Record<DropReason, number>;
}

/** A fresh set of counts, all zero. */
export function deliveryCounts(): DeliveryCounts {
  return {
    sent: 0,
    retries: 0,
    spilled: 0,
    replayed: 0,
    dropped: {
      queueFull: 0,
      tooLarge: 0,
      rejected: 0,
      auth: 0,
      shutdown: 0,
      sampledOut: 0,
      failed: 0,
      spillFull: 0,
      spillExpired: 0,
    },
  };
}
