import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunResult, runCodemod } from "../../tools/codemod/src/run.ts";
import { FIXTURES, FIXTURES_DIR, fixturesCopy, readTree } from "../support/codemod.ts";
import { removeDir } from "../support/packages.ts";

// One run over all four fixture projects at once (each keeps its own package.json, so ESM and CommonJS stay apart):
// loading the v5 declarations is most of the cost of a run.
const expected = (name: string) => readTree(join(FIXTURES_DIR, name, "after"));

describe("the fixture projects, with the v5 packages installed", () => {
  let dir = "";
  let result: RunResult;

  beforeAll(() => {
    dir = fixturesCopy({ v5Types: true, version: "before", keep: true });
    result = runCodemod({ paths: [...FIXTURES], cwd: dir, dryRun: false });
  }, 60_000);
  afterAll(() => removeDir(join(dir, "..")));

  it.each(FIXTURES)("%s is rewritten to the expected v6 code", (name) => {
    expect(readTree(join(dir, name))).toEqual(expected(name));
    expect(result.warnings).toEqual([]);
  });

  it("puts a svc-codemod comment with the message above every place it reports, at the reported line", () => {
    for (const file of result.files.filter((f) => !f.path.endsWith(".json"))) {
      const lines = file.after.split("\n");
      for (const finding of file.findings) {
        const where = `${file.path}:${finding.line}`;
        const comments = lines.slice(0, finding.line - 1).filter((line) => line.includes("// svc-codemod: "));
        expect(
          comments.some((line) => line.includes(finding.message)),
          where,
        ).toBe(true);
        expect(lines[finding.line - 1], where).not.toContain("// svc-codemod: ");
      }
    }
  });

  it("writes no svc-codemod comment it does not report", () => {
    for (const file of result.files) {
      const messages = new Set(file.findings.map((finding) => finding.message));
      const comments = file.after.split("\n").filter((line) => line.includes("// svc-codemod: "));
      for (const comment of comments) {
        expect(
          [...messages].some((message) => comment.includes(message)),
          `${file.path}: ${comment}`,
        ).toBe(true);
      }
    }
  });
});

describe("the fixture projects, rewritten", () => {
  it("do not change when the codemod runs again, and report the same places", () => {
    const dir = fixturesCopy({ v5Types: true, version: "after" });

    const again = runCodemod({ paths: [...FIXTURES], cwd: dir, dryRun: false });

    for (const name of FIXTURES) expect(readTree(join(dir, name))).toEqual(expected(name));
    expect(again.files.filter((file) => file.changed).map((file) => file.path)).toEqual([]);
    expect(again.files.some((file) => file.findings.some((f) => f.kind === "unchanged"))).toBe(true);
  });
});

describe("the fixture projects, without the v5 packages installed", () => {
  it("are rewritten the same way, by names alone, except calls through a namespace variable", () => {
    const dir = fixturesCopy({ v5Types: false, version: "before" });

    const result = runCodemod({ paths: [...FIXTURES], cwd: dir, dryRun: false });

    for (const name of FIXTURES) {
      const want = expected(name);
      if (name === "ts-esm") {
        // `const datasets = svc.api.datasets; datasets.get(name, options)`: only the types tell what `datasets` is.
        const rest = want["src/rest.ts"] ?? "";
        want["src/rest.ts"] = rest.replace(
          'datasets.get("questions", {}, options)',
          'datasets.get("questions", options)',
        );
      }
      expect(readTree(join(dir, name)), name).toEqual(want);
    }
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/did not resolve: calls into them are recognized by their names only/);
  });
});
