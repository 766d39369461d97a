import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

// The README's "Run experiments in CI" project (tests/fixtures/experiments-ci) run as a user runs it: `vitest run`
// in a child process, against a dev server holding the dataset. A first run passes and records a run; a second,
// with an app that gets one capital wrong, fails that item's test and the regression gate.

const FIXTURE = join(ROOT, "tests/fixtures/experiments-ci");
const CONFIG = join(ROOT, "tests/support/experiments-ci.config.ts");
const VITEST = join(ROOT, "node_modules/vitest/vitest.mjs");
const CHILD_TIMEOUT_MS = 120_000;

interface JsonReport {
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

interface ProjectRun {
  code: number | null;
  output: string;
  tests: Map<string, { status: string; message: string }>;
}

let server: DevServer;
let svc: SvcClient;
let project: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startDevServer({ port: 0 });
  svc = new SvcClient({ baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey });
  await svc.api.datasets.create({ name: "capitals" });
  for (const [country, capital] of [
    ["France", "Paris"],
    ["Japan", "Tokyo"],
    ["Peru", "Lima"],
  ] as const) {
    const item = await svc.dataset.createItem({ datasetName: "capitals", input: country, expectedOutput: capital });
    ids[country] = item.id;
  }
  project = join(ROOT, ".tmp", `experiments-ci-${randomUUID().slice(0, 8)}`);
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  cpSync(FIXTURE, project, { recursive: true });
});

afterAll(async () => {
  rmSync(project, { recursive: true, force: true });
  await svc.shutdown();
  await server.close();
});

/** Runs `vitest run` in the project, with the dev server's address and keys, and reads its JSON report. */
function runProject(): Promise<ProjectRun> {
  const reportFile = join(project, `report-${randomUUID().slice(0, 8)}.json`);
  const args = [VITEST, "run", "--root", project, "--config", CONFIG, "--reporter=json", "--outputFile", reportFile];
  const env = {
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    SVC_BASE_URL: server.url,
    SVC_PUBLIC_KEY: server.publicKey,
    SVC_SECRET_KEY: server.secretKey,
    GITHUB_STEP_SUMMARY: join(project, "summary.md"),
  };
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: project, env, timeout: CHILD_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number }).code ?? null) : 0;
      const tests = new Map<string, { status: string; message: string }>();
      if (existsSync(reportFile)) {
        const report = JSON.parse(readFileSync(reportFile, "utf8")) as JsonReport;
        for (const file of report.testResults)
          for (const t of file.assertionResults)
            tests.set(t.title, { status: t.status, message: t.failureMessages.join("\n") });
      }
      resolve({ code: typeof code === "number" ? code : null, output: `${stdout}\n${stderr}`, tests });
    });
  });
}

describe("the CI project of the README, run by vitest in a child process", () => {
  it("passes on a good app, records the run with every item, and writes the gate's result without a baseline", async () => {
    const run = await runProject();

    expect(run.code, run.output).toBe(0);
    expect(Object.fromEntries([...run.tests].map(([title, t]) => [title, t.status]))).toEqual({
      [`item ${JSON.stringify(ids.France)} (input "France")`]: "passed",
      [`item ${JSON.stringify(ids.Japan)} (input "Japan")`]: "passed",
      [`item ${JSON.stringify(ids.Peru)} (input "Peru")`]: "passed",
      "mean(exact_match) >= 0.5": "passed",
      "regression gate": "passed",
    });
    const runs = await svc.api.experiments.list({ fromStartTime: "2020-01-01T00:00:00Z", fields: "core" });
    expect(runs.data).toEqual([expect.objectContaining({ itemCount: 3, name: expect.stringMatching(/^capitals - /) })]);
    const gate = JSON.parse(readFileSync(join(project, "experiment-gate.json"), "utf8"));
    expect(gate).toMatchObject({ passed: true, baseline: null, scores: [], flips: [] });
  });

  it("fails the item the app gets wrong, naming its id, input, output and scores, and fails the gate", async () => {
    writeFileSync(
      join(project, "answer.ts"),
      readFileSync(join(FIXTURE, "answer.ts"), "utf8").replace('Japan: "Tokyo"', 'Japan: "Kyoto"'),
    );

    const run = await runProject();

    expect(run.code, run.output).toBe(1);
    const japan = run.tests.get(`item ${JSON.stringify(ids.Japan)} (input "Japan")`);
    expect(japan?.status).toBe("failed");
    expect(japan?.message).toContain(
      [
        `item "${ids.Japan}" (input "Japan") failed: exact_match >= 1 (got 0)`,
        `  item id:  ${ids.Japan}`,
        "  input:    Japan",
        "  output:   Kyoto",
        "  expected: Tokyo",
        "  scores:   exact_match=0",
      ].join("\n"),
    );
    expect(run.tests.get(`item ${JSON.stringify(ids.France)} (input "France")`)?.status).toBe("passed");
    expect(run.tests.get("mean(exact_match) >= 0.5")?.status).toBe("passed");
    const gate = run.tests.get("regression gate");
    expect(gate?.status).toBe("failed");
    expect(gate?.message).toContain("| exact_match (item mean) | 1 | 0.667 | -0.333 | 0.05 | **FAIL** |");
    expect(gate?.message).toContain(`| \`${ids.Japan}\` | Japan | pass | **fail** |`);
    const summary = readFileSync(join(project, "summary.md"), "utf8");
    expect(summary).toContain("### Regression gate failed");
    expect(summary).toContain("| exact_match (item mean) | 1 | 0.667 | -0.333 | 0.05 | **FAIL** |");
  });
});
