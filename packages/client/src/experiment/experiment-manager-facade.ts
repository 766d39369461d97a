import { loadOnce } from "@svc/core";
import type { ExperimentManagerDeps } from "./experiment-manager.js";
import type {
  DeleteExperimentDataParams,
  DeleteExperimentDataResult,
  ExperimentMetadata,
  ExperimentParams,
  ExperimentResult,
} from "./types.js";

/**
 * Runs experiments: a task over a list of items, each in a trace of its own, judged by evaluators.
 * Reached as `svc.experiment`; runs on a dataset go through `dataset.runExperiment()`. The runner's code loads when
 * it is first used, so an application that never runs an experiment does not carry it.
 */
export class ExperimentManager {
  readonly #deps: ExperimentManagerDeps;
  /** The runner, loaded once; a failed load is tried again on the next call. */
  readonly #load = loadOnce(() =>
    import("./experiment-manager.js").then(({ ExperimentRunner }) => new ExperimentRunner(this.#deps)),
  );

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
    return (await this.#load()).run(params);
  }

  /**
   * Deletes an experiment's traces, with their observations and scores: reads the dataset's creation
   * time, pages `api.experiments.listItems` from then on, and calls `api.trace.deleteMultiple` with at
   * most 1000 trace ids per call.
   * @throws the REST client's typed errors, as they come.
   */
  async deleteData(params: DeleteExperimentDataParams): Promise<DeleteExperimentDataResult> {
    return (await this.#load()).deleteData(params);
  }
}
