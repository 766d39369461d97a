import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packPackages } from "../../scripts/pack.ts";
import { PUBLISHED, ROOT } from "../../scripts/workspace.ts";

export { ROOT };
export const PACKAGE_DIRS = PUBLISHED;

/** Packs every published package as `bash scripts/dev.sh pack` does, into a new folder. */
export function packAll(): { dir: string; tarballs: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), "svc-pack-"));
  return { dir, tarballs: packPackages(dir) };
}

/**
 * The environment npm runs with in tests: the settings pnpm passes down as `npm_config_*` variables are unknown to
 * npm, which warns about each; at log level `error` npm prints only errors.
 */
export function npmEnv(): NodeJS.ProcessEnv {
  return { ...process.env, npm_config_loglevel: "error", npm_config_fund: "false", npm_config_audit: "false" };
}

/** Runs npm in `cwd` and returns what it printed; throws on a failure, with its output. */
export function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: "pipe", env: npmEnv(), timeout: 240_000 });
}

/**
 * Creates an app folder with the given dependencies and runs `npm install` in it, with `install` (package
 * specs, as typed after `npm install`) appended.
 */
export function installApp(
  dependencies: Record<string, string>,
  options: { expectFailure?: boolean; install?: string[] } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "svc-app-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, dependencies }, null, 2));
  try {
    const output = npm(["install", ...(options.install ?? [])], dir);
    if (options.expectFailure) throw new Error(`npm install succeeded but was expected to fail:\n${output}`);
    return { dir, output, ok: true as const };
  } catch (error) {
    if (!options.expectFailure) throw error;
    const e = error as { stdout?: string; stderr?: string };
    return { dir, output: `${e.stdout ?? ""}${e.stderr ?? ""}`, ok: false as const };
  }
}

/** Path of the Node 24 binary, installed into the toolchain folder on first use (scripts/toolchain.sh). */
export function node24(): string {
  return toolchain("node_binary");
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The folder the runtime matrix's runtimes are installed into on first use (runtime_tools of scripts/toolchain.sh). */
export function runtimeTools(): string {
  return toolchain("runtime_tools");
}

/** Path of Debian's Chromium, installed with apt-get on first use (chromium_binary of scripts/toolchain.sh). */
export function chromiumBinary(): string {
  return toolchain("chromium_binary");
}

function toolchain(fn: string): string {
  const script = `root="$1"; source "$root/scripts/toolchain.sh"; ${fn}`;
  return execFileSync("bash", ["-c", script, "bash", ROOT], {
    encoding: "utf8",
    stdio: "pipe",
    env: npmEnv(),
    timeout: 240_000,
  }).trim();
}
