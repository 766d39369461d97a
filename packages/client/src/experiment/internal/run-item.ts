import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A, messageOf, propagateSpanAttributes } from "@svc/core";
import { type SvcSpan, startActiveObservation } from "@svc/tracing";
import type {
  Evaluation,
  ExperimentItem,
  ExperimentItemResult,
  ExperimentParams,
  ExperimentScoreBody,
} from "../types.js";
import { ABANDONED, type AttemptSettings, type AttemptsOutcome, runAttempts } from "./attempts.js";
import { runEvaluators } from "./evaluate.js";

/** Name of the root span of each item's trace. */
export const ITEM_ROOT_SPAN_NAME = "experiment-item-run";
/** Environment recorded on every span of an experiment item. */
export const EXPERIMENT_ENVIRONMENT = "sdk-experiment";

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
type ItemResult = ExperimentItemResult<unknown, unknown, unknown, unknown>;

/** What the runner learns from, and lends to, one item while it runs. */
export interface ItemHooks {
  /** Awaited just before the item's trace and task start; the item starts once it resolves. */
  beforeStart?: () => Promise<void>;
  /** Number of this trial of the item, recorded in its root span's metadata when the run has several. */
  trial?: number;
}

/**
 * Runs the task on one item inside a new trace (with retries and a time limit per attempt), then its evaluators, and
 * queues their scores. Never rejects: the item's `status` and `error` say how it ended, an evaluator's failure is one
 * of its `evaluationFailures`.
 */
export async function runItem(item: Item, run: RunContext, hooks: ItemHooks = {}): Promise<ItemResult> {
  const result: ItemResult = {
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
    const itemId = item.id ?? (await hashInput(item.input));
    await hooks.beforeStart?.();
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
            recordOutcome(result, outcome, root, rootMetadata(item, run, hooks.trial));
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
  for (const evaluation of outcome.evaluations) {
    run.createScore({ ...toScoreFields(evaluation), traceId: result.traceId, observationId: rootSpanId });
  }
  return result;
}

/** Writes how the attempts ended into the result and onto the item's root span. */
function recordOutcome(
  result: ItemResult,
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
  if (outcome.kind === "aborted") {
    result.status = "skipped";
    result.error = ABANDONED;
    root.update({ input: result.input, metadata, level: "WARNING", statusMessage: ABANDONED });
    return;
  }
  result.status = outcome.kind;
  result.error = outcome.error;
  root.update({ input: result.input, metadata, level: "ERROR", statusMessage: outcome.error });
  root.otelSpan.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
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
  if (item.metadata !== undefined && item.metadata !== null) {
    attributes[A.EXPERIMENT_ITEM_METADATA] = toText(item.metadata);
  }
  return attributes;
}

function rootMetadata(item: Item, run: RunContext, trial: number | undefined): Record<string, unknown> {
  const itemMetadata = isPlainObject(item.metadata) ? item.metadata : {};
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
export function toScoreFields(evaluation: Evaluation): ExperimentScoreBody {
  const { name, value, comment, metadata, dataType, configId } = evaluation;
  const body: ExperimentScoreBody = { name, value: typeof value === "boolean" ? Number(value) : value };
  if (typeof value === "boolean") body.dataType = dataType ?? "BOOLEAN";
  else if (dataType !== undefined) body.dataType = dataType;
  if (comment !== undefined) body.comment = comment;
  if (metadata !== undefined) body.metadata = metadata;
  if (configId !== undefined) body.configId = configId;
  return body;
}

/** First 16 hex characters of the SHA-256 of the input (strings as-is, other values as JSON). */
export async function hashInput(input: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(toText(input)));
  let hex = "";
  for (const byte of new Uint8Array(digest).subarray(0, 8)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

function toText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
