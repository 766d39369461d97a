import { getGlobalLogger } from "@svc/core";
import { SvcClient } from "../../client.js";
import { excerpt, itemLabel } from "../format.js";
import { type Assertion, failedItemAssertions, holds, parseAssertions, round, runScore } from "../gate/assertions.js";
import type { GateOptions, GateResult } from "../gate/types.js";
import { itemIdOf } from "../internal/run-item.js";
import type { AnyItemResult, ExperimentItem, ExperimentParams, ExperimentResult } from "../types.js";

type AnyResult = ExperimentResult<unknown, unknown, unknown, unknown>;

/** The three calls of a test runner a suite is declared with. */
export interface TestRunnerCalls {
  describe(name: string, declare: () => Promise<void>): unknown;
  it(name: string, check: () => void): unknown;
  beforeAll(run: () => Promise<void>, timeoutMs: number): unknown;
}

/** Options of `describeExperiment`: those of a run, where the items come from, and what must hold. */
export interface ExperimentSuiteOptions<Output = unknown>
  extends Omit<ExperimentParams<unknown, unknown, unknown, Output>, "data" | "datasetVersion"> {
  /** Client that runs and records the experiment. @defaultValue a `SvcClient` configured from `SVC_*` variables */
  client?: SvcClient;
  /** Local items, each a test. Give `data` or `dataset`. */
  data?: ExperimentItem<unknown, unknown, unknown>[];
  /** Name of a dataset on the server, whose items are each a test. Give `data` or `dataset`. */
  dataset?: string;
  /**
   * Thresholds on scores: `"exact_match >= 1"` must hold for each item (its test fails otherwise), `"mean(helpfulness)
   * >= 0.8"` for the run (a test of its own). Operators: `>=`, `>`, `<=`, `<`, `==`. A failed task fails its item.
   */
  assertions?: string[];
  /** Compares the run with a baseline run, as a test of its own; the item assertions decide the flips by default. */
  gate?: GateOptions;
  /** Longest time the whole run may take, in milliseconds. @defaultValue 600000 */
  timeoutMs?: number;
}

const DEFAULT_SUITE_TIMEOUT_MS = 600_000;
const VALUE_WIDTH = 200;

/** Declares an experiment as a suite: the run once before the tests, then a test per item, run assertion and gate. */
export function declareExperimentSuite<Output>(calls: TestRunnerCalls, options: ExperimentSuiteOptions<Output>): void {
  const assertions = parseAssertions(options.assertions);
  calls.describe(`experiment ${options.name}`, async () => {
    const client = options.client ?? new SvcClient();
    const { client: _client, data, dataset: datasetName, assertions: _a, gate, timeoutMs, ...params } = options;
    if (datasetName !== undefined && data !== undefined) {
      getGlobalLogger().warn(
        `describeExperiment: both data and dataset given for "${options.name}"; the items of dataset "${datasetName}" are used, data is ignored`,
      );
    }
    const dataset = datasetName === undefined ? undefined : await client.dataset.get(datasetName);
    const items = dataset?.items ?? data;
    if (items === undefined) throw new TypeError("describeExperiment: give data (local items) or dataset (its name)");
    let result: AnyResult | undefined;
    let itemIds: string[] = [];
    let gateResult: GateResult | undefined;
    let gateError: unknown;

    calls.beforeAll(async () => {
      const run = dataset
        ? await dataset.runExperiment(params as never)
        : await client.experiment.run({ ...params, data: items } as never);
      result = run as AnyResult;
      itemIds = await Promise.all(items.map(itemIdOf));
      if (!gate) return;
      try {
        gateResult = await result.compareWithBaseline({ assertions: options.assertions, ...gate });
      } catch (error) {
        gateError = error;
      }
    }, timeoutMs ?? DEFAULT_SUITE_TIMEOUT_MS);

    items.forEach((item, index) => {
      const label = itemLabel({ item, input: item.input } as AnyItemResult, index);
      calls.it(label, () => {
        const itemResult = result?.itemResults[index];
        if (!itemResult) throw new Error(`${label}: the experiment did not run`);
        const problems = itemProblems(itemResult, assertions);
        if (problems.length) throw new Error(itemMessage(label, itemResult, itemIds[index], problems));
      });
    });
    for (const assertion of assertions.filter((a) => a.scope === "run")) {
      calls.it(assertion.text, () => {
        if (!result) throw new Error(`${assertion.text}: the experiment did not run`);
        const value = runScore(result.itemResults, result.runEvaluations, assertion.name);
        if (!holds(assertion, value)) throw new Error(runMessage(assertion, value, result));
      });
    }
    if (gate) {
      calls.it("regression gate", () => {
        if (gateError !== undefined) throw gateError;
        if (!gateResult) throw new Error("regression gate: the experiment did not run");
        if (!gateResult.passed) throw new Error(`regression gate failed\n\n${gateResult.markdown}`);
      });
    }
  });
}

function itemProblems(result: AnyItemResult, assertions: readonly Assertion[]): string[] {
  if (result.status !== "ok") {
    const failed = result.trials.find((t) => t.status !== "ok")?.trial ?? 1;
    const failedTrial = result.trials.length > 1 ? ` (trial ${failed} of ${result.trials.length})` : "";
    return [`task ${result.status === "timeout" ? "timed out" : result.status}${failedTrial}: ${result.error}`];
  }
  return failedItemAssertions(result, assertions);
}

/** The message of a failing item: what failed, then the item id, input, output, expected output and scores. */
function itemMessage(label: string, result: AnyItemResult, itemId: string | undefined, problems: string[]): string {
  const scores = Object.entries(result.scores).map(([name, s]) =>
    s.count > 1 ? `${name}=${round(s.mean)} (±${round(s.stdev)} over ${s.count} trials)` : `${name}=${round(s.mean)}`,
  );
  const lines = [
    `${label} failed: ${problems.join("; ")}`,
    `  item id:  ${itemId ?? "-"}${typeof result.item.id === "string" ? "" : " (local item: hash of its input)"}`,
    `  input:    ${excerpt(result.input, VALUE_WIDTH)}`,
    `  output:   ${excerpt(result.output, VALUE_WIDTH)}`,
    `  expected: ${excerpt(result.expectedOutput, VALUE_WIDTH)}`,
    `  scores:   ${scores.length ? scores.join(", ") : "-"}`,
  ];
  if (result.traceId) lines.push(`  trace:    ${result.traceId}`);
  return lines.join("\n");
}

function runMessage(assertion: Assertion, value: number | undefined, result: AnyResult): string {
  const got = value === undefined ? "no value" : `got ${round(value)}`;
  return `${assertion.text} failed (${got}) in run "${result.runName}"${result.experimentUrl ? `: ${result.experimentUrl}` : ""}`;
}
