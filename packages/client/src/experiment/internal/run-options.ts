import {
  booleanOption,
  functionOption,
  MAX_RETRIES_CAP,
  numberOption,
  objectOption,
  type Resolved,
  resolveOptions,
} from "@svc/core";
import { DEFAULT_EXPERIMENT_MAX_CONCURRENCY } from "../defaults.js";
import type { ExperimentProgress } from "../types.js";

export { DEFAULT_EXPERIMENT_MAX_CONCURRENCY };

/** Most trials per item. */
export const MAX_TRIALS = 100;

/** How the run options that shape execution are read; an invalid value warns and falls back to the default. */
export const RUN_SPECS = {
  maxConcurrency: numberOption(DEFAULT_EXPERIMENT_MAX_CONCURRENCY, { min: 0, integer: true }),
  itemTimeoutMs: numberOption(undefined, { min: 0 }),
  trials: numberOption(1, { min: 0, max: MAX_TRIALS, integer: true }),
  maxRetries: numberOption(0, { min: 0, minInclusive: true, max: MAX_RETRIES_CAP, integer: true }),
  signal: objectOption<AbortSignal>(["addEventListener", "removeEventListener"], "an AbortSignal"),
  onProgress: functionOption<(progress: ExperimentProgress) => void>(),
  showProgress: booleanOption(true),
};

/** The other options of a run, read by the runner itself. */
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

/** Run options after checks and defaults. */
export type RunOptions = Resolved<typeof RUN_SPECS>;

/** Reads the execution options of a run; unknown option names get one warning with the closest known name. */
export function resolveRunOptions(params: object): RunOptions {
  return resolveOptions("ExperimentManager.run", RUN_SPECS, params, {}, OTHER_OPTIONS);
}
