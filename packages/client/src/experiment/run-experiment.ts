// The experiment runner, loaded by `ExperimentManager.run()` on the first run.
import {
  booleanOption,
  describeError,
  functionOption,
  getGlobalLogger,
  MAX_RETRIES_CAP,
  mapLimit,
  numberOption,
  objectOption,
  type Resolved,
  randomHex,
  resolveOptions,
} from "@svc/core";
import { getSvcTracerProvider } from "@svc/tracing";
import { evaluatorFailureSummaries, formatExperimentResult, itemLabel, statusCounts } from "./format.js";
import { compareWithBaseline } from "./gate/gate.js";
import { RunProgress } from "./internal/progress.js";
import { type EvaluationOutcome, type RunContext, runEvaluators, runItem, toScoreFields } from "./internal/run-item.js";
import { mean, valuesByName } from "./internal/values.js";
import {
  type AnyItemResult,
  DEFAULT_EXPERIMENT_MAX_CONCURRENCY,
  type ExperimentManagerDeps,
  type ExperimentParams,
  type ExperimentProgress,
  type ExperimentResult,
  type ExperimentTrialResult,
  type ProgressStream,
  type ScoreSummary,
} from "./types.js";

/** How the run options that shape execution are read; an invalid value warns and falls back to the default. */
const RUN_SPECS = {
  maxConcurrency: numberOption(DEFAULT_EXPERIMENT_MAX_CONCURRENCY, { min: 0, integer: true }),
  itemTimeoutMs: numberOption(undefined, { min: 0 }),
  trials: numberOption(1, { min: 0, max: 100, integer: true }),
  maxRetries: numberOption(0, { min: 0, minInclusive: true, max: MAX_RETRIES_CAP, integer: true }),
  signal: objectOption<AbortSignal>(["addEventListener", "removeEventListener"], "an AbortSignal"),
  onProgress: functionOption<(progress: ExperimentProgress) => void>(),
  showProgress: booleanOption(true),
};
/** The other options of a run: known, so that they draw no warning about an unknown name. */
const OTHER_OPTIONS = [
  "name",
  "runName",
  "description",
  "metadata",
  "data",
  "task",
  "evaluators",
  "runEvaluators",
  "datasetVersion",
];

type RunOptions = Resolved<typeof RUN_SPECS>;

/** Runs an experiment for {@link ExperimentManager.run}, which has checked `name`, `data` and `task`. */
export async function runExperiment<Input, ExpectedOutput, Metadata, Output>(
  deps: ExperimentManagerDeps,
  params: ExperimentParams<Input, ExpectedOutput, Metadata, Output>,
): Promise<ExperimentResult<Input, ExpectedOutput, Metadata, Output>> {
  const options = resolveOptions("ExperimentManager.run", RUN_SPECS, params, {}, OTHER_OPTIONS);
  const log = getGlobalLogger();
  const experimentId = randomHex(8);
  const runName = params.runName ?? `${params.name} - ${new Date().toISOString()}`;
  const rate = deps.sampleRate ?? 1;
  if (rate < 1)
    log.warn(
      `ExperimentManager: the client's sampleRate is ${rate}, so the item scores of run "${runName}" are sent only for the traces in that share (and a SvcSpanProcessor with the same rate exports only those traces); run experiments with a client and processor at sampleRate 1 to keep every item.`,
    );
  let warnedNotRecording = false;
  const run: RunContext = {
    experimentId,
    runName,
    params: params as unknown as RunContext["params"],
    datasetVersion: datasetVersionOf(params.datasetVersion),
    attempts: { maxRetries: options.maxRetries, itemTimeoutMs: options.itemTimeoutMs, signal: options.signal },
    createScore: (body) => deps.score.create(body),
    onRootSpan: (isRecording) => {
      if (isRecording || warnedNotRecording) return;
      warnedNotRecording = true;
      log.warn(
        `ExperimentManager: spans of run "${runName}" are not recorded; register an OpenTelemetry tracer provider with SvcSpanProcessor (or call setSvcTracerProvider) before running experiments.`,
      );
    },
  };

  const itemResults = await runItems(deps, run, options);
  logItemOutcomes(itemResults, runName);
  const runOutcome = await evaluateRun(run, itemResults);

  const [experimentUrl] = await Promise.all([
    deps.getExperimentUrl(experimentId).catch((error: unknown) => {
      log.warn(`ExperimentManager: no experiment link, the project id could not be read: ${describeError(error)}`);
      return undefined;
    }),
    flushSpans(),
    deps.score.flush().catch((error: unknown) => {
      log.warn(`ExperimentManager: flushing scores failed: ${describeError(error)}`);
    }),
  ]);

  const summary = {
    experimentId,
    runName,
    itemResults,
    runEvaluations: runOutcome.evaluations,
    runEvaluationFailures: runOutcome.failures,
    experimentUrl,
  };
  const result: ExperimentResult<unknown, unknown, unknown, unknown> = {
    ...summary,
    format: (formatOptions) => formatExperimentResult(summary, formatOptions),
    compareWithBaseline: (gateOptions) =>
      compareWithBaseline(deps.api, { ...summary, experimentName: params.name }, gateOptions),
  };
  return result as unknown as ExperimentResult<Input, ExpectedOutput, Metadata, Output>;
}

/**
 * Runs every trial of every item, at most `maxConcurrency` at once, and gives one result per item. They start in data
 * order: an item hashes its input before it starts, longer for a larger input, so each waits for the one before it.
 */
async function runItems(deps: ExperimentManagerDeps, run: RunContext, options: RunOptions): Promise<AnyItemResult[]> {
  const trials = options.trials;
  const units = run.params.data.flatMap((item) => Array.from({ length: trials }, (_, t) => ({ item, trial: t + 1 })));
  const stderr = typeof process === "undefined" ? undefined : (process.stderr as ProgressStream | undefined);
  const stream = options.showProgress ? (deps.progressStream ?? stderr) : undefined;
  const progress = new RunProgress(units.length, run.runName, options.onProgress, stream);
  const withProgress: RunContext = { ...run, attempts: { ...run.attempts, onRetry: () => progress.count("retries") } };
  let lastStarted = Promise.resolve();
  let results: AnyItemResult[];
  try {
    results = await mapLimit(units, options.maxConcurrency, async ({ item, trial }) => {
      const previous = lastStarted;
      let release = () => {};
      lastStarted = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = false;
      const beforeStart = async () => {
        await previous;
        release();
        started = true;
        progress.count("running");
      };
      let result: AnyItemResult;
      try {
        result = await runItem(item, withProgress, beforeStart, trials > 1 ? trial : undefined);
      } finally {
        release();
      }
      progress.itemEnded(result.status, started);
      return result;
    });
  } finally {
    progress.finish();
  }
  return run.params.data.map((_, index) => combineTrials(results.slice(index * trials, (index + 1) * trials)));
}

/** Calls the run evaluators (not after an abort) and queues their evaluations as run-level scores. */
async function evaluateRun(run: RunContext, itemResults: AnyItemResult[]): Promise<EvaluationOutcome> {
  const { signal } = run.attempts;
  const log = getGlobalLogger();
  const evaluators = run.params.runEvaluators ?? [];
  if (signal?.aborted) {
    if (evaluators.length)
      log.info(`ExperimentManager: run "${run.runName}" was aborted; its run evaluators were not called`);
    return { evaluations: [], failures: [] };
  }
  const outcome = await runEvaluators(evaluators, { itemResults }, { signal });
  for (const evaluation of outcome.evaluations)
    run.createScore({ ...toScoreFields(evaluation), datasetRunId: run.experimentId });
  for (const f of outcome.failures) log.warn(`ExperimentManager: run ${f.evaluator} failed: ${f.message}`);
  return outcome;
}

/** One line for the items that did not succeed, and one per evaluator that failed, instead of a line per item. */
function logItemOutcomes(itemResults: AnyItemResult[], runName: string): void {
  const log = getGlobalLogger();
  const firstFailure = itemResults.findIndex((r) => r.status === "failed" || r.status === "timeout");
  const first = itemResults[firstFailure];
  if (first)
    log.warn(
      `ExperimentManager: run "${runName}": ${statusCounts(itemResults)}; first failure, ${itemLabel(first, firstFailure)}: ${first.error}`,
    );
  else if (itemResults.some((r) => r.status === "skipped"))
    log.info(`ExperimentManager: run "${runName}" was aborted: ${statusCounts(itemResults)}`);
  for (const line of evaluatorFailureSummaries(itemResults)) log.warn(`ExperimentManager: run "${runName}": ${line}`);
}

function datasetVersionOf(version: string | Date | undefined): string | undefined {
  if (version === undefined) return undefined;
  const time = version instanceof Date ? version.getTime() : Date.parse(version);
  if (Number.isNaN(time)) {
    getGlobalLogger().warn(
      `ExperimentManager: datasetVersion must be a timestamp, got ${String(version)}; svc.experiment.item.version not recorded`,
    );
    return undefined;
  }
  return version instanceof Date ? version.toISOString() : version;
}

/** Flushes the svc tracer provider, else the global one (behind the API's proxy); a failure is logged, never thrown. */
async function flushSpans(): Promise<void> {
  type Flushable = { forceFlush?: () => Promise<void>; getDelegate?: () => unknown };
  const provider = getSvcTracerProvider() as Flushable;
  const target =
    typeof provider.forceFlush === "function" ? provider : (provider.getDelegate?.() as Flushable | undefined);
  try {
    await target?.forceFlush?.();
  } catch (error) {
    getGlobalLogger().warn(`ExperimentManager: flushing spans failed: ${describeError(error)}`);
  }
}

/** One item's result from its trials: the fields of the first not `ok` (else the first), every trial, summaries. */
function combineTrials(results: readonly AnyItemResult[]): AnyItemResult {
  const shown = results.find((t) => t.status !== "ok") ?? (results[0] as AnyItemResult);
  const listed: ExperimentTrialResult[] = results.map((t, index) => ({
    trial: index + 1,
    status: t.status,
    attempts: t.attempts,
    output: t.output,
    evaluations: t.evaluations,
    traceId: t.traceId,
    ...(t.error === undefined ? {} : { error: t.error }),
    evaluationFailures: t.evaluationFailures,
  }));
  return { ...shown, trials: listed, scores: summarize(listed) };
}

/** Mean, standard deviation, least and largest numeric value of each evaluator over the trials. */
function summarize(trials: readonly ExperimentTrialResult[]): Record<string, ScoreSummary> {
  const summaries: Record<string, ScoreSummary> = {};
  for (const [name, list] of valuesByName(trials.flatMap((t) => t.evaluations))) {
    const average = mean(list);
    summaries[name] = {
      mean: average,
      stdev: Math.sqrt(mean(list.map((v) => (v - average) ** 2))),
      min: Math.min(...list),
      max: Math.max(...list),
      count: list.length,
    };
  }
  return summaries;
}
