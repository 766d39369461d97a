import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { generate, loadDefinition, OUTPUT_DIR, SHARED_TYPES, staleFiles } from "../../scripts/generate-api.ts";

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

  it("writes only files of the generated folder", () => {
    const names = [...generate().keys()];

    expect(names.every((name) => /^[a-z-]+\.ts$/.test(name))).toBe(true);
    expect(names).toContain("types.ts");
    expect(readFileSync(join(OUTPUT_DIR, "index.ts"), "utf8")).toBe(generate().get("index.ts"));
  });

  it("declares every type once, in the namespace SvcAPI, with a plain-name alias beside it", () => {
    const types = generate().get("types.ts") ?? "";

    expect(types).toContain("export declare namespace SvcAPI {\n");
    expect(types).toContain("  export interface DatasetItem {\n");
    expect(types).toContain("export type DatasetItem = SvcAPI.DatasetItem;\n");
    expect(types.match(/ (?:interface|type) DatasetItem\b/g)).toHaveLength(2);
  });

  it("writes the generated types in method signatures as members of SvcAPI", () => {
    const scores = generate().get("scores.ts") ?? "";

    expect(scores).toContain("create(request: SvcAPI.CreateScoreRequest[], options?: RequestOptions)");
    expect(scores).toContain("ApiPromise<SvcAPI.CreateScoresResponse>");
  });

  it("aliases the hand-written ObservationLevel of @svc/tracing instead of declaring a second one", () => {
    const types = generate().get("types.ts") ?? "";

    expect(types).toContain('import type * as svcTracing from "@svc/tracing";\n');
    expect(types).toContain("  export type ObservationLevel = svcTracing.ObservationLevel;\n");
    expect(types).not.toContain('"DEBUG" | "DEFAULT" | "WARNING" | "ERROR"');
  });

  it("stops when a shared schema no longer matches the hand-written definition", () => {
    const def = loadDefinition();
    const level = def.components.schemas.ObservationLevel;
    def.components.schemas.ObservationLevel = { ...level, enum: [...(level?.enum ?? []), "CRITICAL"] };

    expect(() => generate(def)).toThrow(
      /schema ObservationLevel is now .*"CRITICAL".*@svc\/tracing defines ObservationLevel/,
    );
  });

  it("keeps every shared schema in the API definition", () => {
    const schemas = Object.keys(loadDefinition().components.schemas);

    expect(Object.keys(SHARED_TYPES).filter((name) => !schemas.includes(name))).toEqual([]);
  });

  it("finds no anonymous export * in any package entry point", () => {
    const entries = readdirSync(join(root, "packages")).flatMap((pkg) =>
      ["index.ts", "browser.ts"].map((file) => join(root, "packages", pkg, "src", file)),
    );
    const offenders = entries.filter((file) => {
      try {
        return /^export (?:type )?\* from/m.test(readFileSync(file, "utf8"));
      } catch {
        return false; // the package has no such entry point
      }
    });

    expect(offenders).toEqual([]);
  });
});
