import { describeError, getGlobalLogger, mapLimit } from "@svc/core";
import { deleteExperimentData, type ExperimentDataApi } from "./delete-experiment-data.js";
import { formatExperimentResult } from "./format.js";
import { runEvaluators } from "./internal/evaluate.js";
import { flushSpans } from "./internal/flush-spans.js";
import { type RunContext, runItem, toScoreFields } from "./internal/run-item.js";
import type {
  DeleteExperimentDataParams,
  DeleteExperimentDataResult,
  ExperimentMetadata,
  ExperimentParams,
  ExperimentResult,
  ExperimentScoreBody,
} from "./types.js";

/** Items in flight at once when `maxConcurrency` is not given. */
export const DEFAULT_EXPERIMENT_MAX_CONCURRENCY = 50;

/** What the experiment runner needs from {@link SvcClient}. */
export interface ExperimentManagerDeps {
  /** Queues scores and sends them. */
  score: { create(body: ExperimentScoreBody): void; flush(): Promise<void> };
  /** Link to the experiment comparison view. */
  getExperimentUrl(experimentId: string): Promise<string>;
  /** REST calls of {@link ExperimentManager.deleteData}. */
  api: ExperimentDataApi;
}

/**
 * Runs experiments: a task over a list of items, each in a trace of its own, judged by evaluators.
 * Reached as `svc.experiment`; runs on a dataset go through `dataset.runExperiment()`.
 */
export class ExperimentManager {
  readonly #deps: ExperimentManagerDeps;

  /** An experiment runner on the given client parts; {@link SvcClient} creates the one at `svc.experiment`. */
  constructor(deps: ExperimentManagerDeps) {
    this.#deps = deps;
  }

  /**
   * Runs `task` on every item of `data`, at most `maxConcurrency` at a time, each inside a root span
   * `experiment-item-run` of a new trace that records the experiment as `svc.experiment.*` attributes.
   * Item evaluators then score each output on its trace; run evaluators score the whole run. A task or
   * evaluator that throws fails only that item or evaluation. Spans and scores are flushed before it resolves.
   * The experiment id is generated here (16 random hex characters); the server groups the run's items by it.
   * @throws {TypeError} when `name`, `data` or `task` is missing or of the wrong type.
   * @example
   * ```ts
   * const result = await svc.experiment.run({
   *   name: "capitals",
   *   data: [{ input: "France", expectedOutput: "Paris" }],
   *   task: async ({ input }) => askModel(`Capital of ${input}?`),
   *   evaluators: [({ output, expectedOutput }) => ({ name: "exact_match", value: output === expectedOutput })],
   * });
   * console.log(result.format());
   * ```
   */
  async run<Input = unknown, ExpectedOutput = unknown, Metadata = ExperimentMetadata, Output = unknown>(
    params: ExperimentParams<Input, ExpectedOutput, Metadata, Output>,
  ): Promise<ExperimentResult<Input, ExpectedOutput, Metadata, Output>> {
    const anyParams = params as unknown as RunContext["params"];
    checkParams(anyParams);
    const log = getGlobalLogger();
    const experimentId = randomHex(8);
    const runName = params.runName ?? `${params.name} - ${new Date().toISOString()}`;
    let warnedNotRecording = false;
    const run: RunContext = {
      experimentId,
      runName,
      params: anyParams,
      datasetVersion: resolveDatasetVersion(params.datasetVersion),
      createScore: (body) => this.#deps.score.create(body),
      onRootSpan: (isRecording) => {
        if (isRecording || warnedNotRecording) return;
        warnedNotRecording = true;
        log.warn(
          `ExperimentManager: spans of run "${runName}" are not recorded; register an OpenTelemetry tracer provider with SvcSpanProcessor (or call setSvcTracerProvider) before running experiments.`,
        );
      },
    };

    const maxConcurrency = resolveMaxConcurrency(params.maxConcurrency);
    const itemResults = await mapLimit(params.data, maxConcurrency, (item) => runItem(item, run));
    for (const [index, r] of itemResults.entries()) {
      if (r.error !== undefined)
        log.warn(`ExperimentManager: item ${index + 1} of run "${runName}" failed: ${r.error}`);
      for (const f of r.evaluationFailures) {
        log.warn(`ExperimentManager: ${f.evaluator} failed on item ${index + 1} of run "${runName}": ${f.message}`);
      }
    }

    const runOutcome = await runEvaluators(anyParams.runEvaluators ?? [], { itemResults });
    for (const evaluation of runOutcome.evaluations) {
      this.#deps.score.create({ ...toScoreFields(evaluation), datasetRunId: experimentId });
    }
    for (const f of runOutcome.failures) log.warn(`ExperimentManager: run ${f.evaluator} failed: ${f.message}`);

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
      format: (options) => formatExperimentResult(summary, options),
    };
    return result as unknown as ExperimentResult<Input, ExpectedOutput, Metadata, Output>;
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

function resolveMaxConcurrency(value: number | undefined): number {
  if (value === undefined) return DEFAULT_EXPERIMENT_MAX_CONCURRENCY;
  if (Number.isInteger(value) && value > 0) return value;
  getGlobalLogger().warn(
    `ExperimentManager: maxConcurrency must be a positive integer, got ${String(value)}; using ${DEFAULT_EXPERIMENT_MAX_CONCURRENCY}`,
  );
  return DEFAULT_EXPERIMENT_MAX_CONCURRENCY;
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
