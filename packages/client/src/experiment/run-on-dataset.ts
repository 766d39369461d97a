import type { ExperimentManager } from "./experiment-manager-facade.js";
import type { ExperimentItem, RunExperimentOnDataset } from "./types.js";

/** The parts of a fetched dataset a run needs. */
export interface DatasetForExperiment {
  items: ExperimentItem<unknown, unknown, unknown>[];
  /** Version the dataset was fetched at. */
  version?: string | Date;
}

/** @internal Builds the `runExperiment` of a dataset: runs on its items, recording its version. */
export function createRunExperimentOnDataset(
  manager: ExperimentManager,
  dataset: DatasetForExperiment,
): RunExperimentOnDataset {
  return (params) => manager.run({ ...params, data: dataset.items, datasetVersion: dataset.version });
}
