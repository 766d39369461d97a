import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { generate, PACKAGE_INDEX_PATH, packageIndex, staleFiles } from "../../scripts/generate-api.ts";

const root = join(import.meta.dirname, "../..");

function outputCopy(files: Map<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-generated-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return dir;
}

describe("scripts/generate-api.ts", () => {
  it("passes --check on the checked-in generated client", () => {
    const run = spawnSync(process.execPath, ["scripts/generate-api.ts", "--check"], { cwd: root, encoding: "utf8" });

    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("generates the same text on every run", () => {
    expect(generate()).toEqual(generate());
  });

  it("reports changed, missing and extra output files as stale", () => {
    const files = generate();
    const dir = outputCopy(files);
    writeFileSync(join(dir, "scores.ts"), "// edited by hand\n");
    rmSync(join(dir, "health.ts"));
    writeFileSync(join(dir, "old-namespace.ts"), "");

    expect(staleFiles(files, dir)).toEqual(["health.ts", "old-namespace.ts", "scores.ts"]);
  });

  it("reports nothing stale for a fresh generation", () => {
    const files = generate();

    expect(staleFiles(files, outputCopy(files))).toEqual([]);
  });

  it("lists every export of the generated client by name in the package index, prefixing names taken by other exports", () => {
    const index = [
      'export type { Evaluator } from "./experiment/types.js";',
      'export * from "./api/generated/index.js";',
      'export { SvcClient } from "./client.js";',
      "",
    ].join("\n");

    const written = packageIndex(index);

    expect(written).not.toContain("export *");
    expect(written).toContain("  Evaluator as ApiEvaluator,\n");
    expect(written).toContain("  ExperimentItem,\n");
    expect(written).toContain("  ScoresApi,\n");
    expect(written).toContain('export { SvcApi } from "./api/generated/index.js";\n');
    expect(written.startsWith('export type { Evaluator } from "./experiment/types.js";\n')).toBe(true);
    expect(written.endsWith('export { SvcClient } from "./client.js";\n')).toBe(true);
    expect(packageIndex(written)).toBe(written);
  });

  it("finds the checked-in package index up to date", () => {
    const index = readFileSync(PACKAGE_INDEX_PATH, "utf8");

    expect(packageIndex(index)).toBe(index);
  });

  it("finds no export * in any package entry point", () => {
    const entries = readdirSync(join(root, "packages")).flatMap((pkg) =>
      ["index.ts", "browser.ts"].map((file) => join(root, "packages", pkg, "src", file)),
    );
    const offenders = entries.filter((file) => {
      try {
        return /^export \*/m.test(readFileSync(file, "utf8"));
      } catch {
        return false; // the package has no such entry point
      }
    });

    expect(offenders).toEqual([]);
  });
});
