import type { SvcClient } from "../client.js";
import type { ExperimentItem, ExperimentMetadata, ExperimentParams, ExperimentResult } from "./types.js";

/** Options of a {@link RunnerContext}: defaults for every run started through it. */
export interface RunnerContextOptions {
  /** Client whose experiment runner starts the runs. */
  client: SvcClient;
  /** Items used when a run names none. */
  data?: ExperimentItem<unknown, unknown, unknown>[];
  /** Dataset version recorded when a run names none. */
  datasetVersion?: string | Date;
  /** Metadata merged under each run's own metadata. */
  metadata?: ExperimentMetadata;
}

/** Options of {@link RunnerContext.runExperiment}: those of a run, with `data` optional. */
export type RunnerContextExperimentParams<Output = unknown> = Omit<
  ExperimentParams<unknown, unknown, unknown, Output>,
  "data"
> & {
  /** Items to run on. @defaultValue the context's `data` */
  data?: ExperimentItem<unknown, unknown, unknown>[];
};

/**
 * Defaults shared by several runs, such as the items and metadata a CI job gives every experiment it starts.
 * @example
 * ```ts
 * const ctx = new RunnerContext({ client: svc, data: items, metadata: { commit: process.env.GIT_SHA } });
 * const result = await ctx.runExperiment({ name: "capitals", task, evaluators });
 * ```
 */
export class RunnerContext {
  /** Client whose experiment runner starts the runs. */
  readonly client: SvcClient;
  /** Items used when a run names none. */
  readonly data: ExperimentItem<unknown, unknown, unknown>[] | undefined;
  /** Dataset version recorded when a run names none. */
  readonly datasetVersion: string | Date | undefined;
  /** Metadata merged under each run's own metadata. */
  readonly metadata: ExperimentMetadata | undefined;

  constructor(options: RunnerContextOptions) {
    this.client = options.client;
    this.data = options.data;
    this.datasetVersion = options.datasetVersion;
    this.metadata = options.metadata;
  }

  /**
   * Runs an experiment with the context's defaults filled in: its data and dataset version when the run names
   * none, its metadata under the run's own.
   * @throws {TypeError} when neither the run nor the context gives data.
   */
  async runExperiment<Output = unknown>(
    params: RunnerContextExperimentParams<Output>,
  ): Promise<ExperimentResult<unknown, unknown, unknown, Output>> {
    const data = params.data ?? this.data;
    if (data === undefined)
      throw new TypeError("RunnerContext.runExperiment: no data; pass data to runExperiment or to the RunnerContext");
    const metadata = this.metadata || params.metadata ? { ...this.metadata, ...params.metadata } : undefined;
    return this.client.experiment.run({
      ...params,
      data,
      datasetVersion: params.datasetVersion ?? this.datasetVersion,
      ...(metadata === undefined ? {} : { metadata }),
    });
  }
}
