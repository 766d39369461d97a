import { type Span, trace } from "@opentelemetry/api";
import {
  BatchQueue,
  type DeliveryHealth,
  describeError,
  type ExitWatch,
  failedOutcome,
  getGlobalLogger,
  outcomeOf,
  RepeatLog,
  type SendOutcome,
  Spill,
  sendInHalves,
  serverOf,
  tooLargeOutcome,
  traceSampler,
  watchQueueForExit,
} from "@svc/core";
import { parseBody } from "../api/errors.js";
import type { CreateScoreRequest, ScoreBody } from "../api/generated/types.js";
import type { Operation, RequestRuntime } from "../api/request-runtime.js";
import type { ScoreManagerConfig, SvcClientConfig } from "../config.js";
import { logDroppedScore, prepareScore, rejectionOf } from "./validate-score.js";

/** A score for a span: the trace (and observation) ids come from the span. */
export type ScoreForSpan =
  | Omit<CreateScoreRequest, "traceId" | "observationId">
  | Omit<ScoreBody, "traceId" | "observationId">;

const OWNER = "ScoreManager";
/** Score requests in flight at the same time (a flush of 10,000 scores is 100 requests). */
const MAX_CONCURRENT_SCORE_REQUESTS = 16;
/** The route of `svc.api.scores.create`, to which the queue posts its batches already encoded. */
const CREATE_SCORES: Operation = { method: "POST", path: "/api/public/scores", body: true };

/** A queued score as its JSON text, written once: smaller than the object, and nothing for the collector to trace. */
interface QueuedScore {
  json: string;
  name: string;
}
const NO_IDS: { traceId?: string; observationId?: string } = Object.freeze({});
const NO_KEYS = "the client has no keys: pass publicKey and secretKey (or SVC_PUBLIC_KEY and SVC_SECRET_KEY)";

/** Makes the score manager of a client (`svc.score`); set by the class, whose constructor is private. */
export let createScoreManager: (runtime: RequestRuntime, client: SvcClientConfig) => ScoreManager;

/**
 * Queues scores and sends them in batches of at most 100 to `POST /api/public/scores`, held through outages (bounded)
 * and retried with backoff. Never throws: an invalid score is logged at error level and dropped.
 */
export class ScoreManager {
  static {
    // `this`, not the class name: a class that names itself inside is renamed by the bundler.
    createScoreManager = (runtime, client) => new this(runtime, client);
  }

  readonly #queue: BatchQueue<QueuedScore>;
  readonly #repeats = new RepeatLog();
  readonly #runtime: RequestRuntime;
  readonly #config: ScoreManagerConfig;
  /** Whether both keys are set; without them scores are dropped instead of sent with empty credentials. */
  readonly #hasCredentials: boolean;
  readonly #keepsTrace: (traceId: unknown) => boolean;
  /** Held here: the exit hooks hold it only weakly. */
  readonly #exit: ExitWatch;

  // Private, so that the published declarations name no request runtime: `svc.score` is made by the client.
  private constructor(runtime: RequestRuntime, client: SvcClientConfig) {
    this.#runtime = runtime;
    const config = client.score;
    this.#config = config;
    this.#hasCredentials = client.hasCredentials;
    this.#keepsTrace = traceSampler(config.sampleRate);
    this.#queue = new BatchQueue<QueuedScore>({
      owner: OWNER,
      items: "scores",
      flushAt: config.flushAt,
      flushIntervalMs: config.flushIntervalMs,
      maxBatchItems: config.maxBatchSize,
      maxBatchBytes: config.maxRequestBytes,
      maxQueueItems: config.maxQueueSize,
      maxQueueBytes: config.maxQueueBytes,
      maxConcurrent: MAX_CONCURRENT_SCORE_REQUESTS,
      send: (batch, signal) => this.#send(batch, signal),
      spill: this.#spill(client),
      // Shared with the span processor's queue when it sends to the same origin (see `BatchQueueOptions.server`).
      server: serverOf(client.baseUrl),
      meterProvider: config.meterProvider,
      attemptTimeoutMs: config.attemptTimeoutSeconds * 1000,
    });
    if (config.disabled)
      getGlobalLogger().debug(`${OWNER}: OTEL_SDK_DISABLED=true, so scores are neither queued nor sent`);
    this.#exit = watchQueueForExit(this.#queue, config.flushOnExit, () => this.flush());
  }

  /**
   * Queues a score. Its `timestamp` is the time of this call; `id` (a UUID v4) and `environment` are filled
   * when absent. Takes the previous major's `ScoreBody` too (its `metadata` is any JSON value).
   */
  create(score: CreateScoreRequest | ScoreBody): void {
    // #guard inlined: this is the hot path.
    try {
      this.#enqueue(score, NO_IDS);
    } catch (error) {
      this.#dropped("create", error);
    }
  }

  /** Queues a score for the observation (span) given, on its trace. */
  observation(target: { otelSpan: Span }, score: ScoreForSpan): void {
    this.#guard("observation", () => this.#enqueueFor(target.otelSpan, score, true));
  }

  /** Queues a score for the trace of the span given. */
  trace(target: { otelSpan: Span }, score: ScoreForSpan): void {
    this.#guard("trace", () => this.#enqueueFor(target.otelSpan, score, false));
  }

  /** Queues a score for the active observation (span); logs and drops it when no span is active. */
  activeObservation(score: ScoreForSpan): void {
    this.#guard("activeObservation", () => this.#enqueueFor(trace.getActiveSpan(), score, true));
  }

  /** Queues a score for the trace of the active span; logs and drops it when no span is active. */
  activeTrace(score: ScoreForSpan): void {
    this.#guard("activeTrace", () => this.#enqueueFor(trace.getActiveSpan(), score, false));
  }

  /**
   * Sends every score queued before this call and waits for those being sent: resolves when all were accepted or
   * dropped, or after `flushTimeout` (what is still queued then stays queued, logged). Never rejects.
   */
  async flush(): Promise<void> {
    const { flushTimeoutMs } = this.#config;
    const result = await this.#queue.flush(Date.now() + flushTimeoutMs);
    if (result.pending > 0)
      this.#repeats.warn(`${OWNER}: flush() gave up`, this.#queue.gaveUpLine("flush()", flushTimeoutMs, result));
    this.#repeats.report({ dueOnly: true });
  }

  /**
   * Sends what is queued, within `flushTimeout`, then stops: what is still undelivered is counted in one log line;
   * scores created afterwards are dropped and counted. Never rejects.
   */
  async shutdown(): Promise<void> {
    await this.#queue.shutdown(Date.now() + this.#config.flushTimeoutMs);
    this.#exit.unwatch();
    this.#repeats.report();
  }

  /** Counts of the score queue: queued, in flight, sent, dropped by reason, retries, the last error. */
  health(): DeliveryHealth {
    return this.#queue.health();
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
    this.#repeats.error(kind, `${kind}: ${describeError(error)}`);
  }

  #enqueue(score: unknown, ids: { traceId?: string; observationId?: string }): void {
    if (this.#config.disabled) return;
    const prepared = prepareScore(score, ids, this.#config.environment);
    if (!prepared.ok) {
      logDroppedScore(this.#repeats, OWNER, prepared);
      return;
    }
    if (!this.#keepsTrace(prepared.request.traceId)) {
      this.#queue.drop("sampledOut", 1, "their traces are outside sampleRate");
      return;
    }
    const { request } = prepared;
    request.timestamp = isoTime(Date.now());
    const json = JSON.stringify(request);
    if (json.length > this.#config.maxRequestBytes) {
      this.#queue.drop(
        "tooLarge",
        1,
        `score "${request.name}" is about ${json.length} bytes, more than one request may carry`,
      );
      return;
    }
    this.#queue.offer(json.length, () => ({ json, name: request.name }));
  }

  /** Queues a score on the trace of `span` (and on `span` itself, as its observation, when `onSpan`). */
  #enqueueFor(span: Span | undefined, score: ScoreForSpan, onSpan: boolean): void {
    if (!span) {
      const line = `${OWNER}: no active span, score dropped`;
      this.#repeats.warn(line, line);
      return;
    }
    const { traceId, spanId } = span.spanContext();
    this.#enqueue(score, onSpan ? { traceId, observationId: spanId } : { traceId });
  }

  async #send(queued: QueuedScore[], signal: AbortSignal): Promise<SendOutcome<QueuedScore>> {
    if (!this.#hasCredentials) return failedOutcome(queued.length, NO_KEYS);
    const body = scoreBatchBody(queued);
    const { maxRequestBytes } = this.#config;
    if (body.byteLength > maxRequestBytes) return this.#tooLarge(queued, signal, `${body.byteLength} bytes`);
    const outcome = await this.#post(body, queued.length, signal);
    if (outcome === "tooLarge") return this.#tooLarge(queued, signal, "the server answered 413");
    const { retry, ...settled } = outcome;
    return retry ? { ...settled, retry: { ...retry, items: queued } } : settled;
  }

  /**
   * Posts a score batch body (the JSON array as it goes on the wire) and says what became of its `count` scores:
   * delivered, partly rejected (HTTP 207, logged), to be retried, or dropped; `"tooLarge"` when the server answered 413.
   */
  async #post(body: Uint8Array, count: number, signal: AbortSignal): Promise<SendOutcome<number> | "tooLarge"> {
    const options = { maxRetries: 0, abortSignal: signal, timeoutInSeconds: this.#config.attemptTimeoutSeconds };
    const result = await this.#runtime.send(CREATE_SCORES, body, options);
    if (!result.ok && result.failure.kind === "status" && result.failure.status === 413) return "tooLarge";
    if (!result.ok)
      return outcomeOf(
        result,
        Array.from({ length: count }, (_, i) => i),
        "POST",
      );
    const rejection = rejectionOf(parseBody(new TextDecoder().decode(result.response.body)), count);
    if (!rejection) return { delivered: count };
    const { rejected, line } = rejection;
    this.#repeats.error(`${OWNER}: scores rejected by the server`, line, {
      count: rejected,
      unit: "scores",
      inFull: 3,
    });
    return {
      delivered: count - rejected,
      dropped: [{ count: rejected, reason: "rejected", detail: line, logged: true }],
    };
  }

  /**
   * The spill directory, when `spillDir` (or SVC_SPILL_DIR) names one on a server runtime: a batch is written as the
   * JSON array it is posted as (each score with its own timestamp), and posted again with the client's current keys.
   */
  #spill(client: SvcClientConfig): Spill<QueuedScore> | undefined {
    if (client.score.spill === undefined || !client.hasCredentials) return undefined;
    return new Spill<QueuedScore>(client.score.spill, {
      // The server and project the scores are for: a spill directory keeps them apart.
      identity: `${client.baseUrl}/api/public/scores ${client.publicKey ?? ""}`,
      encode: async (batch) => ({ body: scoreBatchBody(batch), header: { contentType: "application/json" } }),
      send: async (body, _header, count, signal) => {
        const outcome = await this.#post(body, count, signal);
        if (outcome !== "tooLarge") return outcome;
        const detail = `a spilled batch of ${count} scores was refused as too large (HTTP 413)`;
        return { delivered: 0, dropped: [{ count, reason: "tooLarge", detail }] };
      },
    });
  }

  /** Halves a batch too large for one request; drops a single score that still does not fit. */
  async #tooLarge(queued: QueuedScore[], signal: AbortSignal, why: string): Promise<SendOutcome<QueuedScore>> {
    if (queued.length > 1) return sendInHalves(queued, (part) => this.#send(part, signal));
    return tooLargeOutcome(`score "${queued[0]?.name}"`, why, "scoreMaxRequestBytes");
  }
}

/** The body of `POST /api/public/scores` for queued scores: their JSON texts joined into an array. */
function scoreBatchBody(batch: readonly { json: string }[]): Uint8Array {
  return new TextEncoder().encode(`[${batch.map((item) => item.json).join(",")}]`);
}

/** The last time formatted, reused: scores created in a burst share their millisecond. */
let formattedAt = Number.NaN;
let formatted = "";

/** `at` (epoch ms) as an ISO 8601 timestamp. */
function isoTime(at: number): string {
  if (at !== formattedAt) {
    formatted = new Date(at).toISOString();
    formattedAt = at;
  }
  return formatted;
}
