import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { generate, staleFiles } from "../../scripts/generate-api.ts";

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
});
