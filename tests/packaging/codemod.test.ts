import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, FIXTURES_DIR, readTree } from "../support/codemod.ts";
import { packAll, ROOT, removeDir } from "../support/packages.ts";

// The codemod as users get it: packed, run with npx over the fixture projects next to the real v5 packages from the
// npm registry (installed once for the four), and the result type-checked against the packed v6 packages. Needs
// `pnpm build` first. The installs are the slow part; everything else reuses them.

const run = promisify(execFile);
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const NPM_FLAGS = ["--no-audit", "--no-fund", "--loglevel=error"];

/** What the v5 projects depend on, exact, as the codemod's devDependencies pin them. */
const V5_DEPENDENCIES = {
  "@langfuse/client": "5.10.1",
  "@langfuse/core": "5.10.1",
  "@langfuse/langchain": "5.10.1",
  "@langfuse/otel": "5.10.1",
  "@langfuse/tracing": "5.10.1",
  "@langchain/core": "1.4.0",
  "@opentelemetry/api": "1.9.1",
  "@opentelemetry/core": "2.12.1",
  "@opentelemetry/exporter-trace-otlp-http": "0.223.0",
  "@opentelemetry/sdk-trace-base": "2.12.1",
  "@types/node": "22.20.5",
};

interface Report {
  files: { path: string; changed: boolean; findings: { line: number; kind: string; message: string }[] }[];
  warnings: string[];
}

/** A folder with a package.json of `dependencies` and `npm install` run in it. */
async function install(dir: string, dependencies: Record<string, string>): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "apps", private: true, dependencies }, null, 2));
  await run("npm", ["install", ...NPM_FLAGS], { cwd: dir, timeout: 240_000 });
}

/** `tsc -p <dir>`: the `file:line` of each error, in paths relative to `dir`. */
async function typeErrors(dir: string): Promise<string[]> {
  const output = await run(process.execPath, [TSC, "-p", dir, "--pretty", "false"], {
    cwd: dir,
    timeout: 120_000,
  }).then(
    (out) => out.stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  return [...output.matchAll(/^(\S+)\((\d+),\d+\): error /gm)].map(([, file, line]) => `${file}:${line}`).sort();
}

/** Runs the packed codemod with npx, as `npx <tarball>` would after `npm publish`. */
async function npxCodemod(tarball: string, cwd: string, ...args: string[]): Promise<string> {
  const out = await run("npm", ["exec", "--yes", `--package=${tarball}`, "--", "svc-codemod", ...args], {
    cwd,
    timeout: 240_000,
  });
  return out.stdout;
}

describe("the packed codemod, run with npx on the fixture projects", () => {
  let work = "";
  let tarball = "";
  const v5Errors: Record<string, string[]> = {};
  const v6Errors: Record<string, string[]> = {};
  const reports: Record<string, Report> = {};
  const rewritten: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "svc-codemod-pack-"));
    execFileSync("pnpm", ["pack", "--pack-destination", work], { cwd: join(ROOT, "tools", "codemod"), stdio: "pipe" });
    tarball = join(work, readdirSync(work).find((file) => file.startsWith("svc-codemod-")) ?? "");
    const v6Packages = packAll();
    const v6Dependencies = Object.fromEntries(
      Object.entries(v6Packages.tarballs).map(([name, file]) => [name, `file:${file}`]),
    );
    const v5 = join(work, "v5");
    const v6 = join(work, "v6");
    await Promise.all([
      install(v5, V5_DEPENDENCIES),
      install(v6, {
        ...v6Dependencies,
        "@langchain/core": "1.4.0",
        "@opentelemetry/api": "1.9.1",
        "@types/node": "22.20.5",
      }),
    ]);
    for (const name of FIXTURES) cpSync(join(FIXTURES_DIR, name, "before"), join(v5, name), { recursive: true });
    await Promise.all(FIXTURES.map(async (name) => (v5Errors[name] = await typeErrors(join(v5, name)))));
    for (const name of FIXTURES) {
      reports[name] = JSON.parse(await npxCodemod(tarball, join(v5, name), "--json")) as Report;
      rewritten[name] = readTree(join(v5, name));
      cpSync(join(v5, name), join(v6, name), { recursive: true });
    }
    await Promise.all(FIXTURES.map(async (name) => (v6Errors[name] = await typeErrors(join(v6, name)))));
    removeDir(v6Packages.dir);
  }, 600_000);

  afterAll(() => removeDir(work));

  it.each(FIXTURES)("%s: the v5 code type-checks against the v5 packages from the registry", (name) => {
    expect(v5Errors[name]).toEqual([]);
  });

  it.each(FIXTURES)("%s: is rewritten to the expected v6 code, recognizing calls by the v5 types", (name) => {
    expect(rewritten[name]).toEqual(readTree(join(FIXTURES_DIR, name, "after")));
    expect(reports[name]?.warnings).toEqual([]);
  });

  it.each(FIXTURES)("%s: type-checks against the packed v6 packages, but for places the codemod marked", (name) => {
    const marked = new Set(
      reports[name]?.files.flatMap((file) =>
        file.findings.filter((f) => f.kind === "unchanged").map((f) => `${file.path}:${f.line}`),
      ),
    );
    for (const error of v6Errors[name] ?? []) expect(marked, `${name}: ${error} is not marked`).toContain(error);
  });

  it("leaves errors in v6 only where it says so: each fixture with marked code has some, the others none", () => {
    const withErrors = FIXTURES.filter((name) => (v6Errors[name] ?? []).length > 0);
    expect(withErrors).toEqual(["ts-cjs", "js-esm"]);
  });
});

describe("the codemod run with npx from a clone of this repository", () => {
  it("runs from tools/codemod after the workspace is installed and built", async () => {
    const out = await run("npx", ["--yes", join(ROOT, "tools", "codemod"), "--version"], {
      cwd: tmpdir(),
      timeout: 120_000,
    });
    const manifest = JSON.parse(readFileSync(join(ROOT, "tools", "codemod", "package.json"), "utf8"));
    expect(out.stdout.trim()).toBe(manifest.version);
  });
});

describe("the codemod from a clone, as MIGRATION-v6.md gives it before publication", () => {
  it("is packed by dev.sh pack, which prints the command that runs it, and that command runs", async () => {
    const clone = mkdtempSync(join(tmpdir(), "svc-clone-packs-"));
    const app = mkdtempSync(join(tmpdir(), "svc-v5-app-"));
    try {
      // What `bash scripts/dev.sh pack` runs after the build.
      const packed = await run(process.execPath, [join(ROOT, "scripts", "pack.ts"), "--out", join(clone, "packs")], {
        cwd: ROOT,
        timeout: 240_000,
      });
      const command = packed.stdout
        .split("\n")
        .map((line) => line.trim())
        .find((line) => line.startsWith("npx ") && line.includes("--dry-run ."));
      const { version } = JSON.parse(readFileSync(join(ROOT, "tools", "codemod", "package.json"), "utf8"));
      expect(command?.split("   #")[0]).toBe(
        `npx --yes --package ${join(clone, "packs", `svc-codemod-${version}.tgz`)} svc-codemod --dry-run .`,
      );
      writeFileSync(join(app, "index.js"), 'const { LangfuseClient } = require("@langfuse/client");\n');

      const out = await run("bash", ["-c", command?.split("   #")[0] ?? "false"], { cwd: app, timeout: 240_000 });

      expect(out.stdout).toContain("svc-codemod: would change 1 of 1 files (dry run: nothing written)");
    } finally {
      removeDir(clone);
      removeDir(app);
    }
  }, 300_000);
});
