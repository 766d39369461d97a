import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  messageOf,
  propagateSpanAttributes,
  retryDelayMs,
  type Settled,
  type SettleWithinOptions,
  settleWithin,
  sleep,
  toHex,
} from "@svc/core";
import { type SvcSpan, startActiveObservation } from "@svc/tracing";
import type {
  AnyItemResult,
  Evaluation,
  EvaluationFailure,
  ExperimentItem,
  ExperimentParams,
  ExperimentScoreBody,
  ExperimentTaskContext,
} from "../types.js";
import { toText } from "./values.js";

/** Name of the root span of each item's trace. */
const ITEM_ROOT_SPAN_NAME = "experiment-item-run";
/** Environment recorded on every span of an experiment item. */
const EXPERIMENT_ENVIRONMENT = "sdk-experiment";

/** What stays the same for every item of one run. */
export interface RunContext {
  experimentId: string;
  runName: string;
  params: ExperimentParams<unknown, unknown, unknown, unknown>;
  /** Dataset version as an ISO timestamp, or undefined. */
  datasetVersion: string | undefined;
  /** Retries, time limit and abort signal of every item. */
  attempts: AttemptSettings;
  createScore(body: ExperimentScoreBody): void;
  /** Called with the item's root span once, to let the run warn when spans are not recorded. */
  onRootSpan(isRecording: boolean): void;
}

type Item = ExperimentItem<unknown, unknown, unknown>;

/**
 * Runs the task on one item inside a new trace (with retries and a time limit per attempt), then its evaluators, and
 * queues their scores. The trace starts once `beforeStart` resolves; `trial` goes into the root span's metadata. Never
 * rejects: the item's `status` and `error` say how it ended, an evaluator's failure is one of its `evaluationFailures`.
 */
export async function runItem(
  item: Item,
  run: RunContext,
  beforeStart: () => Promise<void>,
  trial: number | undefined,
): Promise<AnyItemResult> {
  const result: AnyItemResult = {
    item,
    status: "ok",
    attempts: 0,
    input: item.input,
    expectedOutput: item.expectedOutput,
    output: undefined,
    evaluations: [],
    traceId: undefined,
    evaluationFailures: [],
    trials: [],
    scores: {},
  };
  if (run.attempts.signal?.aborted)
    return { ...result, status: "skipped", error: "the run was aborted before the item started" };
  if (item.input === undefined) return { ...result, status: "failed", error: "item has no input" };

  let rootSpanId: string | undefined;
  try {
    const itemId = await itemIdOf(item);
    await beforeStart();
    // Without the caller's active span, so that each item starts a trace of its own.
    const detached = trace.deleteSpan(context.active());
    await context.with(detached, () =>
      startActiveObservation(
        ITEM_ROOT_SPAN_NAME,
        async (root) => {
          result.traceId = root.traceId;
          rootSpanId = root.id;
          run.onRootSpan(root.otelSpan.isRecording());
          const propagated = propagatedAttributes(item, itemId, root.id, run);
          // Set on the root directly too: propagation reaches it only through the active context.
          root.otelSpan.setAttributes({ ...propagated, ...rootOnlyAttributes(item, run) });
          await propagateSpanAttributes(propagated, async () => {
            const outcome = await runAttempts((taskContext) => run.params.task(item, taskContext), run.attempts);
            recordOutcome(result, outcome, root, rootMetadata(item, run, trial));
          });
        },
        { asType: "span" },
      ),
    );
  } catch (error) {
    // Only reachable when tracing itself fails; the task's own errors are caught in its attempts.
    result.status = "failed";
    result.error ??= `could not run the item: ${messageOf(error)}`;
  }
  if (result.status !== "ok" || !run.params.evaluators?.length) return result;

  const outcome = await runEvaluators(
    run.params.evaluators,
    { input: item.input, expectedOutput: item.expectedOutput, output: result.output, metadata: item.metadata },
    { timeoutMs: run.attempts.itemTimeoutMs, signal: run.attempts.signal },
  );
  result.evaluations = outcome.evaluations;
  result.evaluationFailures = outcome.failures;
  for (const evaluation of outcome.evaluations)
    run.createScore({ ...toScoreFields(evaluation), traceId: result.traceId, observationId: rootSpanId });
  return result;
}

/** Writes how the attempts ended into the result and onto the item's root span. */
function recordOutcome(
  result: AnyItemResult,
  outcome: AttemptsOutcome,
  root: SvcSpan,
  metadata: Record<string, unknown>,
): void {
  result.attempts = outcome.attempts;
  if (outcome.kind === "ok") {
    result.output = outcome.output;
    root.update({ input: result.input, output: outcome.output, metadata });
    return;
  }
  const aborted = outcome.kind === "aborted";
  result.status = aborted ? "skipped" : outcome.kind;
  result.error = aborted ? ABANDONED : outcome.error;
  markFailed(root, result.error, aborted, { input: result.input, metadata });
}

/** Marks a span whose work did not end well: a warning when the run abandoned it, else an error with its message. */
function markFailed(span: SvcSpan, message: string, aborted: boolean, fields: Record<string, unknown> = {}): void {
  span.update({ ...fields, level: aborted ? "WARNING" : "ERROR", statusMessage: message });
  if (!aborted) span.otelSpan.setStatus({ code: SpanStatusCode.ERROR, message });
}

function rootOnlyAttributes(item: Item, run: RunContext): Record<string, string> {
  const attributes: Record<string, string> = { [A.ENVIRONMENT]: EXPERIMENT_ENVIRONMENT };
  if (run.params.description) attributes[A.EXPERIMENT_DESCRIPTION] = run.params.description;
  if (item.expectedOutput !== undefined) attributes[A.EXPERIMENT_ITEM_EXPECTED_OUTPUT] = toText(item.expectedOutput);
  return attributes;
}

function propagatedAttributes(item: Item, itemId: string, rootSpanId: string, run: RunContext): Record<string, string> {
  const attributes: Record<string, string> = {
    [A.EXPERIMENT_ID]: run.experimentId,
    [A.EXPERIMENT_NAME]: run.runName,
    [A.EXPERIMENT_ITEM_ID]: itemId,
    [A.EXPERIMENT_ITEM_ROOT_OBSERVATION_ID]: rootSpanId,
    [A.ENVIRONMENT]: EXPERIMENT_ENVIRONMENT,
  };
  if (run.params.metadata !== undefined) attributes[A.EXPERIMENT_METADATA] = toText(run.params.metadata);
  if (item.datasetId) attributes[A.EXPERIMENT_DATASET_ID] = item.datasetId;
  if (run.datasetVersion) attributes[A.EXPERIMENT_ITEM_VERSION] = run.datasetVersion;
  if (item.metadata !== undefined && item.metadata !== null)
    attributes[A.EXPERIMENT_ITEM_METADATA] = toText(item.metadata);
  return attributes;
}

function rootMetadata(item: Item, run: RunContext, trial: number | undefined): Record<string, unknown> {
  const { metadata: given } = item;
  const itemMetadata = typeof given === "object" && given !== null && !Array.isArray(given) ? given : {};
  const metadata: Record<string, unknown> = {
    ...itemMetadata,
    ...run.params.metadata,
    experiment_name: run.params.name,
    experiment_run_name: run.runName,
  };
  if (item.datasetId) metadata.dataset_id = item.datasetId;
  if (item.id && item.datasetId) metadata.dataset_item_id = item.id;
  if (trial !== undefined) metadata.trial = trial;
  return metadata;
}

/** Score fields of an evaluation; booleans become 1/0 with data type `BOOLEAN`. */
export function toScoreFields({ name, value, comment, metadata, dataType, configId }: Evaluation): ExperimentScoreBody {
  if (typeof value === "boolean")
    return { name, value: Number(value), dataType: dataType ?? "BOOLEAN", comment, metadata, configId };
  return { name, value, dataType, comment, metadata, configId };
}

/** The id a local item's traces record: the dataset item's id, else the hash of its input. */
export function itemIdOf(item: Item): string | Promise<string> {
  return typeof item.id === "string" ? item.id : hashInput(item.input);
}

/** First 16 hex characters of the SHA-256 of the input (strings as-is, other values as JSON). */
async function hashInput(input: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(toText(input)));
  return toHex(new Uint8Array(digest, 0, 8));
}

/** Name of the child span of each attempt, when a run has retries. */
const ATTEMPT_SPAN_NAME = "experiment-item-attempt";

/** How the attempts of one item ended. */
export type AttemptsOutcome =
  | { kind: "ok"; output: unknown; attempts: number }
  | { kind: "failed" | "timeout"; error: string; attempts: number }
  | { kind: "aborted"; attempts: number };

/** The settings that shape the attempts of every item of a run. */
export interface AttemptSettings {
  maxRetries: number;
  itemTimeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  /** Called when an attempt failed and another one follows (before the wait between them). */
  onRetry?: () => void;
}

type Call = (context: ExperimentTaskContext) => unknown;

/**
 * Calls the task until it returns, at most `maxRetries + 1` times, each attempt bounded by `itemTimeoutMs` and the
 * run's signal, with the core backoff between them; with retries, each attempt in a child span. Never rejects.
 */
async function runAttempts(call: Call, settings: AttemptSettings): Promise<AttemptsOutcome> {
  const { maxRetries, itemTimeoutMs, signal } = settings;
  const total = maxRetries + 1;
  const timedOut = `timed out after ${itemTimeoutMs} ms`;
  let last: AttemptsOutcome = { kind: "aborted", attempts: 0 };
  for (let attempt = 1; attempt <= total; attempt++) {
    if (signal?.aborted) return { kind: "aborted", attempts: attempt - 1 };
    const once = () => settleWithin((abort) => call({ signal: abort, attempt }), { timeoutMs: itemTimeoutMs, signal });
    const settled = maxRetries > 0 ? await inAttemptSpan(attempt, total, timedOut, once) : await once();
    if (settled.kind === "value") return { kind: "ok", output: settled.value, attempts: attempt };
    if (settled.kind === "aborted") return { kind: "aborted", attempts: attempt };
    last = {
      kind: settled.kind === "timeout" ? "timeout" : "failed",
      error: failureText(settled, timedOut),
      attempts: attempt,
    };
    if (attempt === total) break;
    settings.onRetry?.();
    try {
      await sleep(retryDelayMs(attempt - 1), signal);
    } catch {
      return { kind: "aborted", attempts: attempt };
    }
  }
  return last;
}

function inAttemptSpan(
  attempt: number,
  total: number,
  timedOut: string,
  run: () => Promise<Settled<unknown>>,
): Promise<Settled<unknown>> {
  return startActiveObservation(
    ATTEMPT_SPAN_NAME,
    async (span) => {
      span.update({ metadata: { attempt, maxAttempts: total } });
      const settled = await run();
      if (settled.kind !== "value") markFailed(span, failureText(settled, timedOut), settled.kind === "aborted");
      return settled;
    },
    { asType: "span" },
  );
}

/** Status message of an item or attempt abandoned because the run was aborted. */
const ABANDONED = "abandoned: the run was aborted";

/** Why a call did not return: what it threw, `timedOut`, or the abort. */
function failureText(settled: Settled<unknown>, timedOut: string): string {
  if (settled.kind === "timeout") return timedOut;
  return settled.kind === "error" ? messageOf(settled.error) : ABANDONED;
}

/** Evaluations that were produced, and the evaluators that failed. */
export interface EvaluationOutcome {
  evaluations: Evaluation[];
  failures: EvaluationFailure[];
}

type AnyEvaluator<P> = (params: P) => Evaluation | Evaluation[] | Promise<Evaluation | Evaluation[]>;

/**
 * Calls every evaluator at once, each within `bounds`. A throw, time-out, abort or invalid evaluation is a failure of
 * that evaluator; the valid evaluations of the others are kept, in order.
 */
export async function runEvaluators<P>(
  evaluators: readonly AnyEvaluator<P>[],
  params: P,
  bounds: SettleWithinOptions,
): Promise<EvaluationOutcome> {
  const settled = await Promise.all(evaluators.map((evaluate) => settleWithin(() => evaluate(params), bounds)));
  const outcome: EvaluationOutcome = { evaluations: [], failures: [] };
  settled.forEach((result, index) => {
    const evaluator = evaluatorName(evaluators[index], index);
    if (result.kind !== "value") {
      outcome.failures.push({
        evaluator,
        message: failureText(result, `did not settle within ${bounds.timeoutMs} ms`),
      });
      return;
    }
    for (const evaluation of Array.isArray(result.value) ? result.value : [result.value]) {
      const problem = invalidEvaluationReason(evaluation);
      if (problem) outcome.failures.push({ evaluator, message: `returned an invalid evaluation: ${problem}` });
      else outcome.evaluations.push(evaluation);
    }
  });
  return outcome;
}

function evaluatorName(evaluator: unknown, index: number): string {
  const name = typeof evaluator === "function" ? evaluator.name : "";
  return name ? `evaluator ${name}` : `evaluator #${index + 1}`;
}

/** Why `value` is not a usable evaluation, or `undefined` when it is one. */
function invalidEvaluationReason(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null)
    return `expected an object, got ${value === null ? "null" : typeof value}`;
  const { name, value: score } = value as Partial<Evaluation>;
  if (typeof name !== "string" || name.length === 0) return "name must be a non-empty string";
  const valid =
    (typeof score === "number" && Number.isFinite(score)) || typeof score === "string" || typeof score === "boolean";
  if (!valid) return `value must be a finite number, a string or a boolean (name="${name}")`;
  return undefined;
}
