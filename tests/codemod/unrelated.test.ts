import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatReport } from "../../tools/codemod/src/report.ts";
import { runCodemod } from "../../tools/codemod/src/run.ts";
import { FIXTURES_DIR, projectWith, readTree } from "../support/codemod.ts";

// A project that does not use the SDK: prototype guards, `(255).toString(16)`, `e.constructor.name`, strings naming
// the members every object inherits, other libraries' environment variables. The codemod must leave every byte.
const UNRELATED = join(FIXTURES_DIR, "unrelated");

describe("the codemod on code that does not use the SDK", () => {
  it.each([true, false])("changes nothing and reports nothing (v5 packages installed: %s)", (v5Types) => {
    const dir = projectWith({}, { v5Types });
    cpSync(UNRELATED, dir, { recursive: true });
    const before = readTree(dir);

    const result = runCodemod({ paths: ["."], cwd: dir, dryRun: false });

    expect(readTree(dir)).toEqual(before);
    expect(result.files).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.scanned).toBe(Object.keys(before).filter((path) => path !== "tsconfig.json").length);
    expect(formatReport(result, { dryRun: false })).toBe(`svc-codemod: changed 0 of ${result.scanned} files\n`);
  });
});
