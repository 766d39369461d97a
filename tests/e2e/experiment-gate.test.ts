import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";

// The regression gate on a known pair of runs of one dataset, read back from the dev server. The baseline gets a, b
// and c right and d wrong (exact_match 1, 1, 1, 0: mean 0.75); the worse run gets a and d right (1, 0, 0, 1: 0.5).

let e2e: E2eSetup;
let dir: string;
beforeAll(async () => {
  e2e = await startE2e();
  dir = mkdtempSync(join(tmpdir(), "svc-gate-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await e2e.close();
});

const exactMatch = ({ output, expectedOutput }: { output: unknown; expectedOutput: unknown }) => ({
  name: "exact_match",
  value: output === expectedOutput,
});
const accuracy = ({ itemResults }: { itemResults: { evaluations: { value: unknown }[] }[] }) => ({
  name: "accuracy",
  value: itemResults.filter((r) => r.evaluations.some((e) => e.value === true)).length / itemResults.length,
});

async function twoRuns() {
  const name = `gate-${randomUUID().slice(0, 8)}`;
  await e2e.svc.api.datasets.create({ name });
  const ids: Record<string, string> = {};
  for (const letter of ["a", "b", "c", "d"]) {
    ids[letter] = (await e2e.svc.dataset.createItem({ datasetName: name, input: letter, expectedOutput: letter })).id;
  }
  const dataset = await e2e.svc.dataset.get(name);
  const right =
    (letters: string) =>
    ({ input }: { input?: unknown }) =>
      letters.includes(String(input)) ? String(input) : "?";
  const common = { name: "letters", evaluators: [exactMatch], runEvaluators: [accuracy] };
  await dataset.runExperiment({ ...common, runName: `${name} base`, task: right("abc") });
  await e2e.flush();
  const worse = await dataset.runExperiment({ ...common, runName: `${name} worse`, task: right("ad") });
  await e2e.flush();
  return { name, ids, dataset, worse, common, right };
}

describe("the regression gate against the dev server", () => {
  it("prints the table of a worse run against its named baseline and writes it and the JSON result", async () => {
    const { name, ids, dataset, worse } = await twoRuns();
    // Flipped items are listed in the dataset's order (regressions first), which is the server's.
    const [first, second] = dataset.items.map((i) => String(i.input)).filter((l) => l === "b" || l === "c") as [
      string,
      string,
    ];
    const summaryPath = join(dir, "summary.md");
    const jsonPath = join(dir, "gate.json");

    const gate = await worse.compareWithBaseline({
      baseline: `${name} base`,
      maxDrop: { exact_match: 0.1, "*": 0.3 },
      assertions: ["exact_match >= 1"],
      summaryPath,
      jsonPath,
    });

    const expected = `### Regression gate failed: \`${name} worse\`

Compared with the baseline run \`${name} base\`.

| Score | Baseline | Current | Change | Allowed drop | Result |
|---|---:|---:|---:|---:|---|
| exact_match (item mean) | 0.75 | 0.5 | -0.25 | 0.1 | **FAIL** |
| accuracy (run) | 0.75 | 0.5 | -0.25 | 0.3 | pass |

Items that flipped: 2 from pass to fail, 1 from fail to pass.

| Item | Input | Baseline | Current |
|---|---|---|---|
| \`${ids[first]}\` | ${first} | pass | **fail** |
| \`${ids[second]}\` | ${second} | pass | **fail** |
| \`${ids.d}\` | d | fail | pass |
`;
    expect(gate.markdown).toBe(expected);
    expect(gate.passed).toBe(false);
    expect(readFileSync(summaryPath, "utf8")).toBe(`${expected}\n`);
    expect(JSON.parse(readFileSync(jsonPath, "utf8"))).toEqual({
      passed: false,
      runName: `${name} worse`,
      baseline: { experimentId: expect.stringMatching(/^[0-9a-f]{16}$/), runName: `${name} base` },
      scores: [
        {
          name: "exact_match",
          kind: "item mean",
          baseline: 0.75,
          current: 0.5,
          change: -0.25,
          maxDrop: 0.1,
          passed: false,
        },
        { name: "accuracy", kind: "run", baseline: 0.75, current: 0.5, change: -0.25, maxDrop: 0.3, passed: true },
      ],
      flips: [
        { itemId: ids[first], input: first, direction: "regressed" },
        { itemId: ids[second], input: second, direction: "regressed" },
        { itemId: ids.d, input: "d", direction: "fixed" },
      ],
    });
  });

  it("compares with the latest other run of the dataset when no baseline is named", async () => {
    const { name, dataset, common, right } = await twoRuns();
    const third = await dataset.runExperiment({ ...common, runName: `${name} third`, task: right("ad") });
    await e2e.flush();

    const gate = await third.compareWithBaseline();

    expect(gate.baseline?.runName).toBe(`${name} worse`);
    expect(gate.passed).toBe(true);
    expect(gate.scores.map((s) => [s.name, s.change])).toEqual([
      ["exact_match", 0],
      ["accuracy", 0],
    ]);
  });

  it("passes with no baseline and says so in the table", async () => {
    const name = `gate-${randomUUID().slice(0, 8)}`;
    const result = await e2e.svc.experiment.run({
      name,
      runName: `${name} first`,
      data: [{ input: "x", expectedOutput: "x" }],
      task: ({ input }) => input,
      evaluators: [exactMatch],
    });

    const gate = await result.compareWithBaseline();

    expect(gate).toMatchObject({ passed: true, baseline: undefined, scores: [], flips: [] });
    expect(gate.markdown).toBe(
      `### Regression gate passed: \`${name} first\`\n\nNo baseline run was found, so nothing was compared.\n`,
    );
  });
});
