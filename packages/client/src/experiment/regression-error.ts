import type { ExperimentResult } from "./types.js";

/** Options of a {@link RegressionError} with a message of its own. */
export interface RegressionErrorMessageOptions {
  /** The run that regressed. */
  result: ExperimentResult<unknown, unknown, unknown, unknown>;
  /** Message of the error. */
  message: string;
}

/** Options of a {@link RegressionError} that names the metric that regressed. */
export interface RegressionErrorMetricOptions {
  /** The run that regressed. */
  result: ExperimentResult<unknown, unknown, unknown, unknown>;
  /** Name of the metric that regressed. */
  metric: string;
  /** Value the run reached. */
  value: number;
  /** Value the run had to reach. */
  threshold?: number;
}

/** Options of a {@link RegressionError}. */
export type RegressionErrorOptions =
  | RegressionErrorMessageOptions
  | RegressionErrorMetricOptions
  | { result: ExperimentResult<unknown, unknown, unknown, unknown> };

/**
 * Thrown by your own checks (for example in CI) when a run scores worse than it should; carries the run.
 * @example
 * ```ts
 * const accuracy = result.runEvaluations.find((e) => e.name === "accuracy")?.value as number;
 * if (accuracy < 0.9) throw new RegressionError({ result, metric: "accuracy", value: accuracy, threshold: 0.9 });
 * ```
 */
export class RegressionError extends Error {
  override name = "RegressionError";
  /** The run that regressed. */
  readonly result: ExperimentResult<unknown, unknown, unknown, unknown>;
  /** Name of the metric that regressed, when given. */
  readonly metric: string | undefined;
  /** Value the run reached, when given. */
  readonly value: number | undefined;
  /** Value the run had to reach, when given. */
  readonly threshold: number | undefined;

  constructor(options: RegressionErrorOptions) {
    super(regressionMessage(options));
    this.result = options.result;
    const metric = "metric" in options ? options : undefined;
    this.metric = metric?.metric;
    this.value = metric?.value;
    this.threshold = metric?.threshold;
  }
}

function regressionMessage(options: RegressionErrorOptions): string {
  if ("message" in options) return options.message;
  if ("metric" in options && options.value !== undefined) {
    const threshold = options.threshold === undefined ? "" : ` (threshold ${options.threshold})`;
    return `Regression on \`${options.metric}\`: ${options.value}${threshold}`;
  }
  return "Experiment regression detected";
}
