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
}

/** The counts of a queue that only grow: sent, dropped by reason, retries; and the last error and success. */
export class DeliveryStats {
  readonly #dropped: Record<DropReason, number> = {
    queueFull: 0,
    tooLarge: 0,
    rejected: 0,
    auth: 0,
    shutdown: 0,
    sampledOut: 0,
    failed: 0,
  };
  #sent = 0;
  #retries = 0;
  #lastError: DeliveryHealth["lastError"];
  #lastHint: string | undefined;
  #lastSuccessAt: number | undefined;

  /** Items the server accepted. */
  delivered(count: number): void {
    this.#sent += count;
    if (count > 0) this.#lastSuccessAt = Date.now();
  }

  /** Items given up on. */
  dropped(reason: DropReason, count: number): void {
    this.#dropped[reason] += count;
  }

  /** An attempt failed and is tried again. */
  retried(): void {
    this.#retries += 1;
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
  health(held: { queued: number; queuedBytes: number; inFlight: number; shutdown: boolean }): DeliveryHealth {
    return {
      ...held,
      sent: this.#sent,
      dropped: { ...this.#dropped },
      retries: this.#retries,
      lastError: this.#lastError,
      lastSuccessAt: this.#lastSuccessAt === undefined ? undefined : new Date(this.#lastSuccessAt).toISOString(),
    };
  }
}
