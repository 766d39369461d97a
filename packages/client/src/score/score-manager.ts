import { type Span, trace } from "@opentelemetry/api";
import { getGlobalLogger, RepeatLog } from "@svc/tracing";
import type { SvcApi } from "../api/generated/client.js";
import type { CreateScoreRequest } from "../api/generated/types.js";
import { BatchQueue } from "./batch-queue.js";
import type { ScoreManagerConfig } from "./config.js";
import { describe, prepareUnstampedScore, rejectionLine } from "./validate-score.js";

/** A score for a span: the trace (and observation) ids come from the span. */
export type ScoreForSpan = Omit<CreateScoreRequest, "traceId" | "observationId">;

const OWNER = "ScoreManager";

/** A queued score and the time of its `create()` call (epoch ms), written as its ISO timestamp when sent. */
interface QueuedScore {
  request: CreateScoreRequest;
  at: number;
}
const NO_IDS: { traceId?: string; observationId?: string } = Object.freeze({});

/**
 * Queues scores and sends them in batches of at most 100 to `POST /api/public/scores`.
 * Its methods never throw: an invalid score is logged at error level and dropped. Repeated drops of one cause
 * are logged once, then counted; {@link ScoreManager.flush} logs the counts.
 */
export class ScoreManager {
  readonly #queue: BatchQueue<QueuedScore>;
  readonly #repeats = new RepeatLog();

  /** A score queue sending through `api` with settings `config`; {@link SvcClient} creates the one at `svc.score`. */
  constructor(
    private readonly api: SvcApi,
    private readonly config: ScoreManagerConfig,
  ) {
    this.#queue = new BatchQueue(
      {
        flushAt: config.flushAt,
        flushIntervalMs: config.flushIntervalMs,
        maxBatchSize: config.maxBatchSize,
        maxQueueSize: config.maxQueueSize,
        owner: OWNER,
        itemName: "score",
      },
      (batch) => this.#send(batch),
      this.#repeats,
    );
  }

  /**
   * Queues a score. Its `timestamp` is the time of this call; `id` (a UUID v4) and `environment` are filled
   * when absent.
   */
  create(score: CreateScoreRequest): void {
    // The guard inlined: this is the hot path.
    try {
      this.#enqueue(score, NO_IDS);
    } catch (error) {
      this.#dropped("create", error);
    }
  }

  /** Queues a score for the observation (span) given, on its trace. */
  observation(target: { otelSpan: Span }, score: ScoreForSpan): void {
    this.#guard("observation", () => {
      const { traceId, spanId } = target.otelSpan.spanContext();
      this.#enqueue(score, { traceId, observationId: spanId });
    });
  }

  /** Queues a score for the trace of the span given. */
  trace(target: { otelSpan: Span }, score: ScoreForSpan): void {
    this.#guard("trace", () => this.#enqueue(score, { traceId: target.otelSpan.spanContext().traceId }));
  }

  /** Queues a score for the active observation (span); logs and drops it when no span is active. */
  activeObservation(score: ScoreForSpan): void {
    this.#guard("activeObservation", () => {
      const span = trace.getActiveSpan();
      if (!span) return this.#noActiveSpan();
      const { traceId, spanId } = span.spanContext();
      this.#enqueue(score, { traceId, observationId: spanId });
    });
  }

  /** Queues a score for the trace of the active span; logs and drops it when no span is active. */
  activeTrace(score: ScoreForSpan): void {
    this.#guard("activeTrace", () => {
      const span = trace.getActiveSpan();
      if (!span) return this.#noActiveSpan();
      this.#enqueue(score, { traceId: span.spanContext().traceId });
    });
  }

  /**
   * Sends every score queued before this call, and waits for batches already being sent; resolves when
   * all of them were accepted or definitively failed, then logs the counts of repeated drops. Never rejects.
   */
  async flush(): Promise<void> {
    await this.#queue.flush();
    this.#repeats.report();
  }

  /** Sends what is queued; same as {@link ScoreManager.flush}. */
  shutdown(): Promise<void> {
    return this.flush();
  }

  #guard(method: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#dropped(method, error);
    }
  }

  #dropped(method: string, error: unknown): void {
    const kind = `${OWNER}: ${method}: score dropped`;
    this.#repeats.error(kind, `${kind}: ${describe(error)}`);
  }

  #enqueue(score: unknown, ids: { traceId?: string; observationId?: string }): void {
    const prepared = prepareUnstampedScore(score, ids, this.config.environment);
    if (prepared.ok) this.#queue.push({ request: prepared.request, at: Date.now() });
    else
      this.#repeats.error(`${OWNER}: score dropped: ${prepared.kind}`, `${OWNER}: score dropped: ${prepared.reason}`);
  }

  #noActiveSpan(): void {
    const line = `${OWNER}: no active span, score dropped`;
    this.#repeats.warn(line, line);
  }

  async #send(queued: QueuedScore[]): Promise<void> {
    const logger = getGlobalLogger();
    const batch = queued.map(stamp);
    let response: unknown;
    try {
      response = await this.api.scores.create(batch, { maxRetries: this.config.maxRetries });
    } catch (error) {
      logger.error(
        `${OWNER}: ${batch.length} scores lost after ${this.config.maxRetries + 1} attempts at most: ${describe(error)}`,
      );
      return;
    }
    const rejection = rejectionLine(response, batch.length);
    if (rejection) logger.error(rejection);
    else logger.debug(`${OWNER}: sent ${batch.length} scores`);
  }
}

function stamp(item: QueuedScore): CreateScoreRequest {
  item.request.timestamp = new Date(item.at).toISOString();
  return item.request;
}
