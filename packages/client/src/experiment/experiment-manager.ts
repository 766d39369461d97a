import { describeError, loadOnce, RepeatLog } from "@svc/core";
import { cursorPages } from "../api/request-runtime.js";
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

/** Runs experiments (`svc.experiment`): a task over items, each in a trace of its own, judged by evaluators. */
export class ExperimentManager {
  readonly #deps: ExperimentManagerDeps;

  /** An experiment runner on the given client parts; {@link SvcClient} creates the one at `svc.experiment`. */
  constructor(deps: ExperimentManagerDeps) {
    this.#deps = deps;
  }

  /**
   * Runs `task` on every item of `data`, each in a root span `experiment-item-run` of a new trace with the
   * `svc.experiment.*` attributes, then scores the outputs with the evaluators. A task or evaluator that throws or
   * times out fails only that item or evaluation. Spans and scores are flushed before it resolves, also after an abort.
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
   * Deletes an experiment's traces with their observations and scores, 1000 a call; deleted ones stay if a later fails.
   * @throws the REST client's typed errors, as they come.
   */
  async deleteData(params: DeleteExperimentDataParams): Promise<DeleteExperimentDataResult> {
    const { api } = this.#deps;
    const dataset = await api.datasets.get(params.datasetName);
    // The items of the experiment are listed from the dataset's creation on.
    const { createdAt } = dataset;
    const fromStartTime = createdAt instanceof Date ? createdAt.toISOString() : createdAt;
    const traceIds = new Set<string>();
    const request = { datasetId: dataset.id, experimentName: params.experimentName, fromStartTime };
    const listing = { caller: "deleteData", what: "experiment items", maxPages: MAX_EXPERIMENT_ITEM_PAGES };
    for await (const items of cursorPages(listing, (cursor) => api.experiments.listItems({ ...request, ...cursor })))
      for (const item of items) if (item.traceId) traceIds.add(item.traceId);
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
