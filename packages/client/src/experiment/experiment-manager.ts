import { describeError, loadOnce, RepeatLog } from "@svc/core";
import { missingChunkFix } from "../health.js";
import type {
  DeleteExperimentDataParams,
  DeleteExperimentDataResult,
  ExperimentManagerDeps,
  ExperimentMetadata,
  ExperimentParams,
  ExperimentResult,
} from "./types.js";

/** Trace ids per `api.trace.deleteMultiple` call. */
const DELETE_TRACES_CHUNK_SIZE = 1000;
/** Most experiment-item pages one deletion reads, so that a server that never ends paging cannot loop forever. */
const MAX_EXPERIMENT_ITEM_PAGES = 100_000;

/** The runner's code, loaded on the first run; a failed load is tried again on the next one. */
const loadRunner = loadOnce(() => import("./run-experiment.js"));
const loadFailures = new RepeatLog();

/**
 * Runs experiments: a task over a list of items, each in a trace of its own, judged by evaluators.
 * Reached as `svc.experiment`; runs on a dataset go through `dataset.runExperiment()`. The runner's code loads on the
 * first run, so an application that never runs an experiment does not carry it.
 */
export class ExperimentManager {
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
   * @throws {TypeError} when `name`, `data` or `task` is missing or of the wrong type; an `Error` named
   * `SvcModuleLoadError` (logged once, with what to do) when the runner's code cannot be loaded.
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
    checkParams(params);
    const { runExperiment } = await loadRunner().catch(runnerNotLoaded);
    return runExperiment(this.#deps, params);
  }

  /**
   * Deletes an experiment's traces, with their observations and scores: reads the dataset's creation time, pages
   * `api.experiments.listItems` from then on, and calls `api.trace.deleteMultiple` with at most 1000 trace ids per
   * call. Traces deleted by earlier calls stay deleted when a later one fails.
   * @throws the REST client's typed errors, as they come.
   */
  async deleteData(params: DeleteExperimentDataParams): Promise<DeleteExperimentDataResult> {
    const { api } = this.#deps;
    const dataset = await api.datasets.get(params.datasetName);
    const { createdAt } = dataset;
    const fromStartTime = createdAt instanceof Date ? createdAt.toISOString() : createdAt;
    const traceIds = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= MAX_EXPERIMENT_ITEM_PAGES)
        throw new Error(
          `deleteData: stopped after ${page} pages of experiment items; the server kept returning a cursor`,
        );
      const response = await api.experiments.listItems({
        datasetId: dataset.id,
        experimentName: params.experimentName,
        fromStartTime,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const item of response.data) if (item.traceId) traceIds.add(item.traceId);
      const next = response.meta?.cursor ?? undefined;
      if (next === undefined || next === "") break;
      if (next === cursor) throw new Error(`deleteData: the server returned the same cursor twice ("${next}")`);
      cursor = next;
    }
    const ids = [...traceIds];
    for (let start = 0; start < ids.length; start += DELETE_TRACES_CHUNK_SIZE)
      await api.trace.deleteMultiple({ traceIds: ids.slice(start, start + DELETE_TRACES_CHUNK_SIZE) });
    return { deletedTraceIds: ids };
  }
}

function checkParams(params: { name?: unknown; data?: unknown; task?: unknown }): void {
  if (typeof params?.name !== "string" || params.name.length === 0)
    throw new TypeError("ExperimentManager.run: option name must be a non-empty string");
  if (!Array.isArray(params.data))
    throw new TypeError(`ExperimentManager.run: option data must be an array of items, got ${typeof params.data}`);
  if (typeof params.task !== "function")
    throw new TypeError(`ExperimentManager.run: option task must be a function, got ${typeof params.task}`);
}

/** A copy of the package that lacks the runner's file (some deploy tools copy only the files imported statically). */
function runnerNotLoaded(cause: unknown): never {
  const fix = missingChunkFix("run-experiment");
  const kind = "ExperimentManager: the experiment runner could not be loaded";
  loadFailures.error(kind, `${kind} (${describeError(cause)}); ${fix}`);
  const error = new Error(`ExperimentManager.run: the experiment runner could not be loaded; ${fix}`, { cause });
  error.name = "SvcModuleLoadError";
  throw error;
}
