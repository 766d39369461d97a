import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ROOT, removeDir } from "../support/packages.ts";

const pinned = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { packageManager: string })
  .packageManager;
const pinnedVersion = pinned.replace(/^pnpm@/, "");

/** A project folder whose package.json names another pnpm version than the repository's. */
function projectAskingForOtherPnpm(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-pm-"));
  onTestFinished(() => removeDir(dir));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "pm-probe", packageManager: "pnpm@9.15.9" }));
  return dir;
}

function withoutSwitchSetting(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^npm_config_manage_package_manager_versions$/i.test(key)) delete env[key];
  return env;
}

describe("toolchain", () => {
  it("pins the same pnpm version in package.json and scripts/toolchain.sh", () => {
    const script = readFileSync(join(ROOT, "scripts", "toolchain.sh"), "utf8");

    expect(pinned).toMatch(/^pnpm@\d+\.\d+\.\d+$/);
    expect(script).toContain(`PNPM_VERSION="${pinnedVersion}"`);
  });

  it("keeps pnpm from switching versions under the repository's pnpm-workspace.yaml", () => {
    const dir = projectAskingForOtherPnpm();
    copyFileSync(join(ROOT, "pnpm-workspace.yaml"), join(dir, "pnpm-workspace.yaml"));

    const run = spawnSync("pnpm", ["--version"], { cwd: dir, env: withoutSwitchSetting(), encoding: "utf8" });

    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(pinnedVersion);
  });

  it("keeps pnpm from switching versions in any folder once scripts/toolchain.sh set up the environment", () => {
    const dir = projectAskingForOtherPnpm();
    const script = `root="$1"; source "$root/scripts/toolchain.sh"; ensure_toolchain; cd "$2"; pnpm --version`;

    const run = spawnSync("bash", ["-c", script, "bash", ROOT, dir], {
      env: withoutSwitchSetting(),
      encoding: "utf8",
    });

    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(pinnedVersion);
  });
});

describe("the first install of a fresh clone", () => {
  it("gives npm no setting it does not know: pnpm's settings are in pnpm-workspace.yaml, not in an .npmrc", () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

    const run = spawnSync("npm", ["config", "get", "registry"], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });

    expect(run.status).toBe(0);
    expect(run.stderr).toBe("");
  });

  it("can link every command a workspace package depends on before the first build: no bin points into dist/", () => {
    const manifests = workspaceManifests();
    const dependedOn = new Set(
      manifests.flatMap((m) => Object.keys({ ...m.dependencies, ...m.devDependencies, ...m.peerDependencies })),
    );
    const tracked = new Set(
      execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" })
        .split("\n")
        .filter((line) => line !== ""),
    );

    const commands = manifests
      .filter((m) => dependedOn.has(m.name))
      .flatMap((m) => Object.values(m.bin ?? {}).map((path) => join(m.dir, path).slice(ROOT.length + 1)));

    expect(commands).toContain("packages/client/bin/svc.js");
    for (const command of commands) expect(tracked, command).toContain(command);
  });
});

interface Manifest {
  dir: string;
  name: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The package.json of every package of the workspace (the folders pnpm-workspace.yaml lists). */
function workspaceManifests(): Manifest[] {
  const patterns = [...readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8").matchAll(/^\s+- "([^"]+)"$/gm)].map(
    (m) => m[1] ?? "",
  );
  const dirs = patterns.flatMap((pattern) =>
    pattern.endsWith("/*")
      ? readdirSync(join(ROOT, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(ROOT, pattern.slice(0, -2), entry.name))
      : [join(ROOT, pattern)],
  );
  return dirs
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Omit<Manifest, "dir">) }));
}
