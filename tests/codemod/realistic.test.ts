import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatReport } from "../../tools/codemod/src/report.ts";
import { runCodemod } from "../../tools/codemod/src/run.ts";
import { FIXTURES_DIR, projectWith, readTree } from "../support/codemod.ts";

// The realistic project (app code, an integration that writes span attributes by hand, vitest and jest tests that
// mock the packages, a script still on a v4 name), rewritten from source. tests/packaging/codemod-project.test.ts runs
// the packed codemod on it and then the project's own type check and tests against the packed v6 packages.
const REALISTIC = join(FIXTURES_DIR, "realistic");

describe("the realistic project", () => {
  it("is rewritten to the expected v6 code, and the report says what is left to do", () => {
    const dir = projectWith({}, { v5Types: true });
    cpSync(join(REALISTIC, "before"), dir, { recursive: true });

    const result = runCodemod({ paths: ["."], cwd: dir, dryRun: false });

    expect(readTree(dir)).toEqual(readTree(join(REALISTIC, "after")));
    const report = formatReport(result, { dryRun: false });
    expect(report).toContain("svc-codemod: changed 10 of 10 files\n");
    expect(report).toMatch(/ {2}mocks +3 in 3 files/);
    expect(report).toMatch(/ {2}attributes +19 in 2 files/);
    expect(report).toContain(
      "Rewritten; check that the behaviour is what you want: (1)\n  src/integration.ts:49  attributes:",
    );
    expect(report).toContain('Left as is, marked with a "svc-codemod:" comment (or, in package.json, only here): (2)');
    expect(report).toContain("  scripts/backfill.js:3  exports: updateActiveTrace() (v4) was removed:");
    expect(report).toContain("  scripts/backfill.js:9  exports: updateActiveTrace() (v4) was removed:");
    expect(report).toContain(
      "Text that names v5 environment variables, left as it is (update messages and docs): (1)\n  src/otel.ts:14 LANGFUSE_SECRET_KEY\n",
    );
  });
});
