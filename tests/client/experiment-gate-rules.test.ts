import { describe, expect, it } from "vitest";
import { holds, parseAssertions } from "../../packages/client/src/experiment/gate/assertions.js";
import type { BaselineRun } from "../../packages/client/src/experiment/gate/baseline.js";
import { compareRuns } from "../../packages/client/src/experiment/gate/gate.js";
import { summarize } from "../../packages/client/src/experiment/run-experiment.js";
import type { ExperimentItemResult } from "../../packages/client/src/experiment/types.js";

describe("assertions", () => {
  it("reads item and run thresholds with each operator", () => {
    expect(parseAssertions(["exact_match >= 1", "mean(helpfulness) > 0.8", " latency<=-2.5 "])).toEqual([
      { text: "exact_match >= 1", scope: "item", name: "exact_match", operator: ">=", threshold: 1 },
      { text: "mean(helpfulness) > 0.8", scope: "run", name: "helpfulness", operator: ">", threshold: 0.8 },
      { text: "latency<=-2.5", scope: "item", name: "latency", operator: "<=", threshold: -2.5 },
    ]);
  });

  it("throws a TypeError naming an assertion it cannot read and the form to use", () => {
    expect(() => parseAssertions(["exact_match => 1"])).toThrow(
      'assertion "exact_match => 1" cannot be read; write "<score> <op> <number>" or "mean(<score>) <op> <number>"',
    );
  });

  it("does not hold for a missing value", () => {
    const [atLeastOne] = parseAssertions(["x >= 1"]);
    expect(atLeastOne && holds(atLeastOne, undefined)).toBe(false);
    expect(atLeastOne && holds(atLeastOne, 1)).toBe(true);
  });
});

describe("trial summaries", () => {
  it("counts booleans as 1 and 0 and leaves out text values", () => {
    const trial = (value: number | string | boolean) => ({
      trial: 1,
      status: "ok" as const,
      attempts: 1,
      output: undefined,
      evaluations: [{ name: "s", value }],
      traceId: undefined,
      evaluationFailures: [],
    });
    // Values 1, 0, 1: mean 2/3, population variance 2/9.
    expect(summarize([trial(true), trial(false), trial("n/a"), trial(1)])).toEqual({
      s: { mean: 2 / 3, stdev: Math.sqrt(2 / 9), min: 0, max: 1, count: 3 },
    });
  });
});

describe("score thresholds of the gate", () => {
  const item = (value: number): ExperimentItemResult => ({
    item: { input: "q" },
    status: "ok",
    attempts: 1,
    input: "q",
    expectedOutput: undefined,
    output: "a",
    evaluations: [{ name: "acc", value }],
    traceId: "t",
    evaluationFailures: [],
    trials: [],
    scores: {},
  });
  const baseline = (scores: Record<string, number>): BaselineRun => ({
    experimentId: "b",
    runName: "base",
    runScores: new Map(Object.entries(scores)),
    items: new Map(),
  });
  const current = (value: number) => ({
    runName: "now",
    itemResults: [item(value)],
    itemIds: ["i"],
    runEvaluations: [],
  });

  it("passes a drop equal to maxDrop and fails a larger one", () => {
    const withItems: BaselineRun = {
      ...baseline({}),
      items: new Map([["i", [{ failed: false, scores: new Map([["acc", 0.75]]) }]]]),
    };
    expect(compareRuns(current(0.5), withItems, { maxDrop: 0.25 }, []).passed).toBe(true);
    expect(compareRuns(current(0.5), withItems, { maxDrop: 0.2 }, []).passed).toBe(false);
  });

  it("passes a score the baseline lacks and fails one the current run lacks", () => {
    const gate = compareRuns(current(1), baseline({ old_run_score: 0.9 }), {}, []);
    expect(gate.scores.map((s) => [s.name, s.kind, s.passed])).toEqual([
      ["acc", "item mean", true],
      ["old_run_score", "run", false],
    ]);
    expect(gate.passed).toBe(false);
  });
});
