import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declareExperimentSuite, type TestRunnerCalls } from "../../packages/client/src/experiment/ci/suite.js";
import { type E2eSetup, startE2e } from "../support/e2e.ts";
import { captureLogs } from "../support/logs.ts";

// How describeExperiment reads its options, through a test runner that records what it is asked to declare.

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

/** A runner that declares into lists and runs the suite's body, its hook, then its tests, reporting each outcome. */
function recordingRunner() {
  const tests: { name: string; check: () => void }[] = [];
  const hooks: (() => Promise<void>)[] = [];
  let declared: Promise<void> = Promise.resolve();
  const calls: TestRunnerCalls = {
    describe: (_name, declare) => {
      declared = declare();
    },
    it: (name, check) => tests.push({ name, check }),
    beforeAll: (run) => hooks.push(run),
  };
  const run = async () => {
    await declared;
    for (const hook of hooks) await hook();
    return tests.map(({ name, check }) => {
      try {
        check();
        return [name, "passed"];
      } catch (error) {
        return [name, (error as Error).message.split("\n")[0]];
      }
    });
  };
  return { calls, run };
}

describe("describeExperiment's options", () => {
  it("uses the dataset's items when data is given too, and says so once", async () => {
    const logs = captureLogs();
    await e2e.svc.api.datasets.create({ name: "suite-both" });
    await e2e.svc.dataset.createItem({ datasetName: "suite-both", input: "remote", expectedOutput: "remote" });
    const runner = recordingRunner();

    declareExperimentSuite(runner.calls, {
      name: "both",
      client: e2e.svc,
      dataset: "suite-both",
      data: [{ input: "local" }],
      task: ({ input }) => input,
      showProgress: false,
    });
    const outcomes = await runner.run();

    expect(outcomes).toEqual([[expect.stringMatching(/\(input "remote"\)$/), "passed"]]);
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining(
        'describeExperiment: both data and dataset given for "both"; the items of dataset "suite-both" are used, data is ignored',
      ),
    ]);
  });

  it("throws a TypeError at declaration for an assertion it cannot read", () => {
    const runner = recordingRunner();

    expect(() =>
      declareExperimentSuite(runner.calls, { name: "bad", data: [], task: () => 1, assertions: ["exact_match ~ 1"] }),
    ).toThrow(TypeError);
  });
});
