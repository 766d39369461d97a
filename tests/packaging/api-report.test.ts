import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ROOT } from "../support/packages.ts";

// These tests read the built declarations of @svc/tracing (the smallest package): run `pnpm build` first.
const SCRIPT = join(ROOT, "scripts", "api-report.ts");
const REPORT = join(ROOT, "packages", "tracing", "api-report", "tracing.api.md");

function apiReport(...args: string[]) {
  const run = spawnSync(process.execPath, [SCRIPT, "--check", "--package", "tracing", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: run.status, stderr: run.stderr };
}

function tempDir(parent: string, prefix: string): string {
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A folder of reports (`<dir>/tracing/*.api.md`) holding the checked-in reports of @svc/tracing, the one of its main
 * entry changed by `edit`.
 */
function reportsCopy(edit: (text: string) => string = (text) => text): string {
  const dir = tempDir(tmpdir(), "svc-reports-");
  mkdirSync(join(dir, "tracing"));
  cpSync(join(ROOT, "packages", "tracing", "api-report"), join(dir, "tracing"), { recursive: true });
  writeFileSync(join(dir, "tracing", "tracing.api.md"), edit(readFileSync(REPORT, "utf8")));
  return dir;
}

/** A packages folder holding a copy of the built @svc/tracing, to change its declarations. */
function tracingCopy(): { packages: string; copy: string } {
  // Inside the repository, so that the copied declarations still resolve their imports from node_modules.
  const packages = tempDir(join(ROOT, ".tmp"), "api-report-");
  const copy = join(packages, "tracing");
  for (const part of ["package.json", "dist", "api-report"]) {
    cpSync(join(ROOT, "packages", "tracing", part), join(copy, part), { recursive: true });
  }
  return { packages, copy };
}

describe("pnpm api-report --check", () => {
  it("passes when the built surface matches the report", () => {
    const run = apiReport("--reports-dir", reportsCopy());

    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("fails on a surface that differs from its report, names the report and says to run pnpm api-report", () => {
    const edited = (text: string) => text.replace("export function createTraceId(", "export function makeTraceId(");
    expect(edited(readFileSync(REPORT, "utf8"))).not.toBe(readFileSync(REPORT, "utf8"));
    const reports = reportsCopy(edited);

    const run = apiReport("--reports-dir", reports);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain("the exported surface of @svc/tracing (.) differs from");
    expect(run.stderr).toContain("Run `pnpm api-report` and review the change");
    expect(run.stderr).toContain("+export function createTraceId(");
    expect(readFileSync(join(reports, "tracing", "tracing.api.md"), "utf8")).toContain("makeTraceId(");
  });

  it("passes when only the lines of the declarations moved: findings are listed without their locations", () => {
    const { packages, copy } = tracingCopy();
    const declarations = join(copy, "dist", "index.d.ts");
    writeFileSync(declarations, `\n\n\n${readFileSync(declarations, "utf8")}`);

    const run = apiReport("--packages-dir", packages);

    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(readFileSync(REPORT, "utf8")).not.toMatch(/^\/\/ \S+\.d\.ts:\d+/m);
  });

  it("fails when a built declaration file contains the tag @internal", () => {
    const { packages, copy } = tracingCopy();
    const declarations = join(copy, "dist", "index.d.ts");
    const lines = readFileSync(declarations, "utf8").split("\n");
    const at = lines.findIndex((line) => line.startsWith("declare function createTraceId("));
    expect(at).toBeGreaterThan(0);
    lines.splice(at, 0, "/** @internal Not for users. */");
    writeFileSync(declarations, lines.join("\n"));

    const run = apiReport("--packages-dir", packages);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain("the built declarations of tracing contain the tag @internal");
    expect(run.stderr).toContain(`dist/index.d.ts:${at + 1}: /** @internal Not for users. */`);
  });
});
