import type { Evaluation, ExperimentItemResult } from "../types.js";
import { type Assertion, failedItemAssertions, holds, numericValue, runScore } from "./assertions.js";
import type { BaselineRun, BaselineTrial } from "./baseline.js";
import { gateMarkdown } from "./markdown.js";
import type { GateFlip, GateOptions, GateResult, GateScore } from "./types.js";

type ItemResult = ExperimentItemResult<unknown, unknown, unknown, unknown>;

/** The run being compared, with the id of each item as its traces record it. */
export interface CurrentRun {
  runName: string;
  itemResults: ItemResult[];
  itemIds: string[];
  runEvaluations: Evaluation[];
}

/** Compares a run with its baseline: each score against its threshold, and each item's pass or fail. */
export function compareRuns(
  current: CurrentRun,
  baseline: BaselineRun | undefined,
  options: GateOptions,
  assertions: readonly Assertion[],
): GateResult {
  const scores = baseline ? compareScores(current, baseline, options.maxDrop) : [];
  const flips = baseline ? itemFlips(current, baseline, assertions) : [];
  const regressed = flips.some((f) => f.direction === "regressed");
  const passed = scores.every((s) => s.passed) && !(options.failOnFlips && regressed);
  const result: Omit<GateResult, "markdown"> = {
    passed,
    runName: current.runName,
    baseline: baseline && { experimentId: baseline.experimentId, runName: baseline.runName },
    scores,
    flips,
  };
  return { ...result, markdown: gateMarkdown(result, current) };
}

function compareScores(current: CurrentRun, baseline: BaselineRun, maxDrop: GateOptions["maxDrop"]): GateScore[] {
  const itemNames = new Set<string>();
  for (const r of current.itemResults)
    for (const t of r.trials?.length ? r.trials : [r])
      for (const e of t.evaluations) if (numericValue(e.value) !== undefined) itemNames.add(e.name);
  const baselineItemMeans = baselineItemScores(baseline);
  for (const name of baselineItemMeans.keys()) itemNames.add(name);

  const runNames = new Set<string>();
  for (const e of current.runEvaluations) if (numericValue(e.value) !== undefined) runNames.add(e.name);
  for (const name of baseline.runScores.keys()) runNames.add(name);

  const score = (name: string, kind: GateScore["kind"], now: number | undefined, before: number | undefined) => {
    const drop = dropFor(name, maxDrop);
    const change = now !== undefined && before !== undefined ? now - before : undefined;
    const passed = before === undefined || (change !== undefined && change >= -drop - 1e-9);
    return { name, kind, baseline: before, current: now, change, maxDrop: drop, passed };
  };
  const byName = (a: string, b: string) => a.localeCompare(b);
  return [
    ...[...itemNames].sort(byName).map((n) => score(n, "item mean", itemMean(current, n), baselineItemMeans.get(n))),
    ...[...runNames].sort(byName).map((n) => {
      const now = numericValue(current.runEvaluations.find((e) => e.name === n)?.value);
      return score(n, "run", now, baseline.runScores.get(n));
    }),
  ];
}

function itemMean(current: CurrentRun, name: string): number | undefined {
  const hasItemValue = current.itemResults.some((r) =>
    (r.trials?.length ? r.trials : [r]).some((t) => t.evaluations.some((e) => e.name === name)),
  );
  return hasItemValue ? runScore(current.itemResults, [], name) : undefined;
}

/** Per score name, the mean over every trace of every baseline item. */
function baselineItemScores(baseline: BaselineRun): Map<string, number> {
  const values = new Map<string, number[]>();
  for (const trials of baseline.items.values())
    for (const trial of trials)
      for (const [name, value] of trial.scores) values.set(name, [...(values.get(name) ?? []), value]);
  return new Map([...values].map(([name, list]) => [name, list.reduce((s, v) => s + v, 0) / list.length]));
}

function dropFor(name: string, maxDrop: GateOptions["maxDrop"]): number {
  if (typeof maxDrop === "number") return maxDrop;
  return maxDrop?.[name] ?? maxDrop?.["*"] ?? 0;
}

function itemFlips(current: CurrentRun, baseline: BaselineRun, assertions: readonly Assertion[]): GateFlip[] {
  const flips: GateFlip[] = [];
  current.itemResults.forEach((result, index) => {
    const itemId = current.itemIds[index];
    const before = itemId === undefined ? undefined : baseline.items.get(itemId);
    if (itemId === undefined || !before?.length) return;
    const passedBefore = baselinePasses(before, assertions);
    const passesNow = result.status === "ok" && failedItemAssertions(result, assertions).length === 0;
    if (passedBefore && !passesNow) flips.push({ itemId, input: result.input, direction: "regressed" });
    if (!passedBefore && passesNow) flips.push({ itemId, input: result.input, direction: "fixed" });
  });
  return [...flips.filter((f) => f.direction === "regressed"), ...flips.filter((f) => f.direction === "fixed")];
}

function baselinePasses(trials: BaselineTrial[], assertions: readonly Assertion[]): boolean {
  if (trials.some((t) => t.failed)) return false;
  return assertions
    .filter((a) => a.scope === "item")
    .every((a) => {
      const values = trials.map((t) => t.scores.get(a.name)).filter((v): v is number => v !== undefined);
      return holds(a, values.length ? values.reduce((s, v) => s + v, 0) / values.length : undefined);
    });
}
