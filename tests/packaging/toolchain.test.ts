import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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

  it("keeps pnpm from switching versions under the repository's .npmrc", () => {
    const dir = projectAskingForOtherPnpm();
    copyFileSync(join(ROOT, ".npmrc"), join(dir, ".npmrc"));

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
