import type { ExperimentItemResult, ExperimentTrialResult, ScoreSummary } from "../types.js";

type ItemResult = ExperimentItemResult<unknown, unknown, unknown, unknown>;

/**
 * One item's result from the results of its trials (in trial order): the item's own fields are those of its first
 * trial that did not end `ok`, else of its first trial; every trial is listed, and each evaluator is summed up.
 */
export function combineTrials(trials: readonly ItemResult[]): ItemResult {
  const first = trials[0];
  if (!first) throw new RangeError("combineTrials: an item has at least one trial");
  const shown = trials.find((t) => t.status !== "ok") ?? first;
  const listed: ExperimentTrialResult[] = trials.map((t, index) => ({
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
export function summarize(trials: readonly ExperimentTrialResult[]): Record<string, ScoreSummary> {
  const values = new Map<string, number[]>();
  for (const trial of trials) {
    for (const { name, value } of trial.evaluations) {
      const numeric = typeof value === "boolean" ? Number(value) : value;
      if (typeof numeric !== "number" || !Number.isFinite(numeric)) continue;
      values.set(name, [...(values.get(name) ?? []), numeric]);
    }
  }
  const summaries: Record<string, ScoreSummary> = {};
  for (const [name, list] of values) {
    const mean = list.reduce((sum, v) => sum + v, 0) / list.length;
    const variance = list.reduce((sum, v) => sum + (v - mean) ** 2, 0) / list.length;
    summaries[name] = {
      mean,
      stdev: Math.sqrt(variance),
      min: Math.min(...list),
      max: Math.max(...list),
      count: list.length,
    };
  }
  return summaries;
}
