import { describeExperiment } from "@svc/client/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";
import { type E2eSetup, startE2e } from "../support/e2e.ts";

// How describeExperiment reads its options: a suite of Node's own test runner (`@svc/client/node-test`) run as a
// user runs it, in a child process against a dev server; a declaration that must throw, in place.

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

describe("describeExperiment's options", () => {
  it("uses the dataset's items when data is given too, and says so once", async () => {
    await e2e.svc.api.datasets.create({ name: "suite-both" });
    await e2e.svc.dataset.createItem({ datasetName: "suite-both", input: "remote", expectedOutput: "remote" });
    const { server } = e2e;

    const run = await runChild(
      `
      import { describeExperiment } from "@svc/client/node-test";

      describeExperiment({
        name: "both",
        dataset: "suite-both",
        data: [{ input: "local" }],
        task: ({ input }) => input,
        showProgress: false,
      });
      `,
      {
        nodeArgs: ["--test-reporter=tap"],
        env: { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: server.secretKey },
        timeoutMs: 60_000,
      },
    );

    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    const tests = run.stdout.match(/^\s*(?:not )?ok \d+ - item .*$/gm) ?? [];
    expect(tests.map((line) => line.trim())).toEqual([expect.stringMatching(/^ok \d+ - item .*\(input "remote"\)$/)]);
    const warning =
      'describeExperiment: both data and dataset given for "both"; the items of dataset "suite-both" are used, data is ignored';
    expect(output.split(warning)).toHaveLength(2);
  });

  it("throws a TypeError at declaration for an assertion it cannot read", () => {
    expect(() => describeExperiment({ name: "bad", data: [], task: () => 1, assertions: ["exact_match ~ 1"] })).toThrow(
      TypeError,
    );
  });
});
