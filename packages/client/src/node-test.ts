// `@svc/client/node-test`: an experiment declared as a suite of Node's own test runner (`node:test`).
import { before, describe, it } from "node:test";
import { declareExperimentSuite, type ExperimentSuiteOptions } from "./experiment/ci/suite.js";

export type { ExperimentSuiteOptions } from "./experiment/ci/suite.js";
export type { GateBaseline, GateFlip, GateOptions, GateResult, GateScore } from "./experiment/gate/types.js";

/**
 * Declares an experiment as a `node:test` suite: one run (recorded on the server), a test per item (failing with its
 * id, input, output and scores) and per run assertion, and with `gate` one for the comparison with a baseline run.
 * @example
 * ```ts
 * describeExperiment({
 *   name: "capitals",
 *   dataset: "capitals",
 *   task: ({ input }) => answer(String(input)),
 *   evaluators: [({ output, expectedOutput }) => ({ name: "exact_match", value: output === expectedOutput })],
 *   assertions: ["exact_match >= 1"],
 * });
 * ```
 */
export function describeExperiment<Output = unknown>(options: ExperimentSuiteOptions<Output>): void {
  declareExperimentSuite({ describe, it, beforeAll: (run, timeout) => before(run, { timeout }) }, options);
}
