import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installCommands, packCodemod, packPackages } from "../../scripts/pack.ts";
import { FIXTURES_DIR, readTree } from "../support/codemod.ts";
import { npmEnv, removeDir } from "../support/packages.ts";

// The realistic project end to end, as a user migrates it: installed with its v5 packages and its own test tools
// (vitest, jest, typescript, pinned in its package.json) from the registry, type-checked and tested; rewritten by the
// packed codemod run with npx; then installed with npm and with pnpm against the packed v6 packages (the install
// lines of the pack script), type-checked and tested again. Needs `pnpm build` first.

const run = promisify(execFile);
const REALISTIC = join(FIXTURES_DIR, "realistic");
const NPM_FLAGS = "--no-audit --no-fund --loglevel=error";

interface Outcome {
  ok: boolean;
  output: string;
}

/** The environment of the project's commands: without the variables of the vitest run this test is part of. */
function childEnv(): NodeJS.ProcessEnv {
  const env = npmEnv();
  for (const key of Object.keys(env)) {
    if (key.startsWith("VITEST") || ["TEST", "NODE_ENV", "FORCE_COLOR"].includes(key)) delete env[key];
  }
  env.NO_COLOR = "1";
  return env;
}

async function shell(line: string, cwd: string): Promise<Outcome> {
  return run("bash", ["-c", line], { cwd, timeout: 300_000, env: childEnv(), maxBuffer: 16 * 1024 * 1024 }).then(
    (out) => ({ ok: true, output: out.stdout + out.stderr }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout}${error.stderr}` }),
  );
}

/** The project's type check and its two test suites. */
async function check(dir: string): Promise<Record<"tsc" | "vitest" | "jest", Outcome>> {
  const [tsc, vitest, jest] = await Promise.all([
    shell("node_modules/.bin/tsc --noEmit", dir),
    shell("node_modules/.bin/vitest run src", dir),
    shell("node_modules/.bin/jest", dir),
  ]);
  return { tsc, vitest, jest };
}

/** A copy of the project's own files (no installed packages, no lockfile) in `to`. */
function copyProject(from: string, to: string): void {
  cpSync(from, to, {
    recursive: true,
    filter: (path) => !/[\\/](node_modules|package-lock\.json)$/.test(path),
  });
}

describe("the realistic project, migrated with the packed codemod", () => {
  let work = "";
  let report = "";
  let rewritten: Record<string, string> = {};
  let before: Awaited<ReturnType<typeof check>>;
  const installs: Record<string, Outcome> = {};
  const after: Record<string, Awaited<ReturnType<typeof check>>> = {};

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "svc-codemod-project-"));
    const packs = join(work, "packs");
    const all = packPackages(packs);
    const codemod = packCodemod(packs);
    const v5 = join(work, "v5");
    cpSync(join(REALISTIC, "before"), v5, { recursive: true });
    const installed = await shell(`npm install ${NPM_FLAGS}`, v5);
    if (!installed.ok) throw new Error(`npm install of the v5 project failed:\n${installed.output}`);
    before = await check(v5);

    const migrated = await shell(`npm exec --yes --package=${codemod} -- svc-codemod .`, v5);
    if (!migrated.ok) throw new Error(`the codemod failed:\n${migrated.output}`);
    report = migrated.output;
    rewritten = readTree(v5);
    delete rewritten["package-lock.json"];

    // The v6 packages the rewritten package.json names, each from its tarball.
    const manifest = JSON.parse(readFileSync(join(v5, "package.json"), "utf8")) as { dependencies: object };
    const tarballs = Object.fromEntries(Object.entries(all).filter(([name]) => name in manifest.dependencies));
    const lines = installCommands(tarballs, "");
    await Promise.all(
      (["npm", "pnpm"] as const).map(async (manager) => {
        const dir = join(work, manager);
        copyProject(v5, dir);
        installs[manager] = await shell(manager === "npm" ? `${lines.npm} ${NPM_FLAGS}` : lines.pnpm, dir);
        if (installs[manager].ok) after[manager] = await check(dir);
      }),
    );
  }, 900_000);

  afterAll(() => removeDir(work));

  it("type-checks and passes its own vitest and jest tests on v5, before the migration", () => {
    for (const [step, outcome] of Object.entries(before)) expect(outcome.ok, `${step}:\n${outcome.output}`).toBe(true);
  });

  it("is rewritten to the expected v6 code, with the report listing what is left", () => {
    expect(rewritten).toEqual(readTree(join(REALISTIC, "after")));
    expect(report).toContain("svc-codemod: changed 10 of 10 files");
    expect(report).toContain("  scripts/backfill.js:3  exports: updateActiveTrace() (v4) was removed:");
    expect(report).toContain("  src/otel.ts:14 LANGFUSE_SECRET_KEY");
  });

  it.each(["npm", "pnpm"])("%s: installs the packed v6 packages with the pack script's line", (manager) => {
    expect(installs[manager]?.ok, installs[manager]?.output).toBe(true);
  });

  it.each(["npm", "pnpm"])("%s: type-checks and passes its own vitest and jest tests on v6", (manager) => {
    for (const [step, outcome] of Object.entries(after[manager] ?? {})) {
      expect(outcome.ok, `${manager} ${step}:\n${outcome.output}`).toBe(true);
    }
    expect(Object.keys(after[manager] ?? {})).toEqual(["tsc", "vitest", "jest"]);
    expect(after[manager]?.vitest.output).toMatch(/Tests +4 passed \(4\)/);
    expect(after[manager]?.jest.output).toMatch(/Tests: +1 passed, 1 total/);
  });
});
