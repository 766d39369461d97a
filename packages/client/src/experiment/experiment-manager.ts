import { describeError, getGlobalLogger, mapLimit } from "@svc/core";
import { deleteExperimentData, type ExperimentDataApi } from "./delete-experiment-data.js";
import { evaluatorFailureSummaries, formatExperimentResult, itemLabel, statusCounts } from "./format.js";
import type { GateApi } from "./gate/baseline.js";
import { compareWithBaseline } from "./gate/gate.js";
import { type EvaluationOutcome, runEvaluators } from "./internal/evaluate.js";
import { flushSpans } from "./internal/flush-spans.js";
import { defaultProgressStream, type ProgressStream, RunProgress } from "./internal/progress.js";
import { type RunContext, runItem, toScoreFields } from "./internal/run-item.js";
import { type RunOptions, resolveRunOptions } from "./internal/run-options.js";
import { StartOrder } from "./internal/start-order.js";
import { combineTrials } from "./internal/trials.js";
import type {
  DeleteExperimentDataParams,
  DeleteExperimentDataResult,
  ExperimentItemResult,
  ExperimentMetadata,
  ExperimentParams,
  ExperimentResult,
  ExperimentScoreBody,
} from "./types.js";

export type { ProgressStream } from "./internal/progress.js";

type ItemResult = ExperimentItemResult<unknown, unknown, unknown, unknown>;

export { DEFAULT_EXPERIMENT_MAX_CONCURRENCY } from "./internal/run-options.js";

/** What the experiment runner needs from {@link SvcClient}. */
export interface ExperimentManagerDeps {
  /** Queues scores and sends them. */
  score: { create(body: ExperimentScoreBody): void; flush(): Promise<void> };
  /** Link to the experiment comparison view. */
  getExperimentUrl(experimentId: string): Promise<string>;
  /** REST calls of {@link ExperimentManager.deleteData} and of the comparison with a baseline run. */
  api: ExperimentDataApi & GateApi;
  /** The client's `sampleRate`: below 1, a run warns that some of its items' scores are not sent. @defaultValue 1 */
  sampleRate?: number;
  /** Where the progress line is drawn, when it is a terminal. @defaultValue `process.stderr` */
  progressStream?: ProgressStream;
}

/**
 * The experiment runner behind {@link ExperimentManager}, which loads this module when it first runs an experiment.
 * @internal
 */
export class ExperimentRunner {
  readonly #deps: ExperimentManagerDeps;

  /** An experiment runner on the given client parts; {@link SvcClient} creates the one at `svc.experiment`. */
  constructor(deps: ExperimentManagerDeps) {
    this.#deps = deps;
  }

  /**
   * Runs `task` on every item of `data`, at most `maxConcurrency` at a time, each inside a root span
   * `experiment-item-run` of a new trace that records the experiment as `svc.experiment.*` attributes. An attempt of
   * the task may be limited in time (`itemTimeoutMs`) and retried (`maxRetries`); the run may be aborted (`signal`).
   * Item evaluators then score each output on its trace; run evaluators score the whole run. A task or evaluator that
   * throws, hangs or times out fails only that item or evaluation: each item's `status` says how it ended. Progress
   * goes to `onProgress`, and to a line on stderr when it is a terminal. Spans and scores are flushed before it
   * resolves, also after an abort. The experiment id is generated here (16 random hex characters); the server groups
   * the run's items by it.
   * @throws {TypeError} when `name`, `data` or `task` is missing or of the wrong type.
   * @example
   * ```ts
   * const result = await svc.experiment.run({
   *   name: "capitals",
   *   data: [{ input: "France", expectedOutput: "Paris" }],
   *   task: async ({ input }, { signal }) => askModel(`Capital of ${input}?`, { signal }),
   *   evaluators: [({ output, expectedOutput }) => ({ name: "exact_match", value: output === expectedOutput })],
   *   itemTimeoutMs: 30_000,
   *   maxRetries: 2,
   * });
   * console.log(result.format());
   * ```
   */
  async run<Input = unknown, ExpectedOutput = unknown, Metadata = ExperimentMetadata, Output = unknown>(
    params: ExperimentParams<Input, ExpectedOutput, Metadata, Output>,
  ): Promise<ExperimentResult<Input, ExpectedOutput, Metadata, Output>> {
    const anyParams = params as unknown as RunContext["params"];
    checkParams(anyParams);
    const options = resolveRunOptions(params);
    const log = getGlobalLogger();
    const experimentId = randomHex(8);
    const runName = params.runName ?? `${params.name} - ${new Date().toISOString()}`;
    this.#warnWhenSampled(runName);
    let warnedNotRecording = false;
    const run: RunContext = {
      experimentId,
      runName,
      params: anyParams,
      datasetVersion: resolveDatasetVersion(params.datasetVersion),
      attempts: { maxRetries: options.maxRetries, itemTimeoutMs: options.itemTimeoutMs, signal: options.signal },
      createScore: (body) => this.#deps.score.create(body),
      onRootSpan: (isRecording) => {
        if (isRecording || warnedNotRecording) return;
        warnedNotRecording = true;
        log.warn(
          `ExperimentManager: spans of run "${runName}" are not recorded; register an OpenTelemetry tracer provider with SvcSpanProcessor (or call setSvcTracerProvider) before running experiments.`,
        );
      },
    };

    const itemResults = await this.#runItems(run, options);
    logItemOutcomes(itemResults, runName);
    const runOutcome = await this.#evaluateRun(run, itemResults, options.signal);

    const [experimentUrl] = await Promise.all([
      this.#deps.getExperimentUrl(experimentId).catch((error: unknown) => {
        log.warn(`ExperimentManager: no experiment link, the project id could not be read: ${describeError(error)}`);
        return undefined;
      }),
      flushSpans(),
      this.#deps.score.flush().catch((error: unknown) => {
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
        compareWithBaseline(this.#deps.api, { ...summary, experimentName: params.name }, gateOptions),
    };
    return result as unknown as ExperimentResult<Input, ExpectedOutput, Metadata, Output>;
  }

  /**
   * Runs every trial of every item, at most `maxConcurrency` at once: they start in data order (the trials of an item
   * one after the other), the next one as soon as any running trial settles. Reports progress as trials start, retry
   * and end, and gives one result per item with its trials.
   */
  async #runItems(run: RunContext, options: RunOptions): Promise<ItemResult[]> {
    const trials = options.trials;
    const units = run.params.data.flatMap((item) => Array.from({ length: trials }, (_, t) => ({ item, trial: t + 1 })));
    const stream = options.showProgress ? (this.#deps.progressStream ?? defaultProgressStream()) : undefined;
    const progress = new RunProgress(units.length, run.runName, options.onProgress, stream);
    const withProgress: RunContext = { ...run, attempts: { ...run.attempts, onRetry: () => progress.retried() } };
    const order = new StartOrder();
    let results: ItemResult[];
    try {
      results = await mapLimit(units, options.maxConcurrency, async ({ item, trial }) => {
        const turn = order.next();
        let started = false;
        const beforeStart = async () => {
          await turn.wait();
          turn.release();
          started = true;
          progress.itemStarted();
        };
        let result: ItemResult;
        try {
          result = await runItem(item, withProgress, { beforeStart, ...(trials > 1 ? { trial } : {}) });
        } finally {
          turn.release();
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
  async #evaluateRun(
    run: RunContext,
    itemResults: ItemResult[],
    signal: AbortSignal | undefined,
  ): Promise<EvaluationOutcome> {
    const log = getGlobalLogger();
    const evaluators = run.params.runEvaluators ?? [];
    if (signal?.aborted) {
      if (evaluators.length)
        log.info(`ExperimentManager: run "${run.runName}" was aborted; its run evaluators were not called`);
      return { evaluations: [], failures: [] };
    }
    const outcome = await runEvaluators(evaluators, { itemResults }, { signal });
    for (const evaluation of outcome.evaluations) {
      this.#deps.score.create({ ...toScoreFields(evaluation), datasetRunId: run.experimentId });
    }
    for (const f of outcome.failures) log.warn(`ExperimentManager: run ${f.evaluator} failed: ${f.message}`);
    return outcome;
  }

  /** Says once per run that items of traces outside the client's `sampleRate` lose their scores. */
  #warnWhenSampled(runName: string): void {
    const rate = this.#deps.sampleRate ?? 1;
    if (rate >= 1) return;
    getGlobalLogger().warn(
      `ExperimentManager: the client's sampleRate is ${rate}, so the item scores of run "${runName}" are sent only for the traces in that share (and a SvcSpanProcessor with the same rate exports only those traces); run experiments with a client and processor at sampleRate 1 to keep every item.`,
    );
  }

  /**
   * Deletes an experiment's traces, with their observations and scores: reads the dataset's creation
   * time, pages `api.experiments.listItems` from then on, and calls `api.trace.deleteMultiple` with at
   * most 1000 trace ids per call.
   * @throws the REST client's typed errors, as they come.
   */
  deleteData(params: DeleteExperimentDataParams): Promise<DeleteExperimentDataResult> {
    return deleteExperimentData(this.#deps.api, params);
  }
}

function checkParams(params: RunContext["params"]): void {
  if (typeof params?.name !== "string" || params.name.length === 0) {
    throw new TypeError("ExperimentManager.run: option name must be a non-empty string");
  }
  if (!Array.isArray(params.data)) {
    throw new TypeError(`ExperimentManager.run: option data must be an array of items, got ${typeof params.data}`);
  }
  if (typeof params.task !== "function") {
    throw new TypeError(`ExperimentManager.run: option task must be a function, got ${typeof params.task}`);
  }
}

/** One line for the items that did not succeed, and one per evaluator that failed, instead of a line per item. */
function logItemOutcomes(itemResults: ItemResult[], runName: string): void {
  const log = getGlobalLogger();
  const firstFailure = itemResults.findIndex((r) => r.status === "failed" || r.status === "timeout");
  if (firstFailure >= 0) {
    const first = itemResults[firstFailure];
    log.warn(
      `ExperimentManager: run "${runName}": ${statusCounts(itemResults)}; first failure, ${first ? itemLabel(first, firstFailure) : ""}: ${first?.error}`,
    );
  } else if (itemResults.some((r) => r.status === "skipped")) {
    log.info(`ExperimentManager: run "${runName}" was aborted: ${statusCounts(itemResults)}`);
  }
  for (const { line } of evaluatorFailureSummaries(itemResults))
    log.warn(`ExperimentManager: run "${runName}": ${line}`);
}

function resolveDatasetVersion(version: string | Date | undefined): string | undefined {
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

function randomHex(bytes: number): string {
  let hex = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(bytes))) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
