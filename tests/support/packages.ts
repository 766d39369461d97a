import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");
export const PACKAGE_DIRS = ["tracing", "otel", "client", "langchain"] as const;

/** Packs every workspace package with `pnpm pack` (which pins workspace: ranges) into a new folder. */
export function packAll(): { dir: string; tarballs: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), "svc-pack-"));
  const tarballs: Record<string, string> = {};
  for (const name of PACKAGE_DIRS) {
    execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: join(ROOT, "packages", name), stdio: "pipe" });
    const file = readdirSync(dir).find((f) => f.startsWith(`svc-${name}-`) && f.endsWith(".tgz"));
    if (!file) throw new Error(`pnpm pack wrote no tarball for @svc/${name}`);
    tarballs[`@svc/${name}`] = join(dir, file);
  }
  return { dir, tarballs };
}

/** Creates an app folder with the given dependencies and runs `npm install` in it. */
export function installApp(dependencies: Record<string, string>, options: { expectFailure?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "svc-app-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, dependencies }, null, 2));
  try {
    const output = execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: dir,
      stdio: "pipe",
      encoding: "utf8",
      timeout: 240_000,
    });
    if (options.expectFailure) throw new Error(`npm install succeeded but was expected to fail:\n${output}`);
    return { dir, output, ok: true as const };
  } catch (error) {
    if (!options.expectFailure) throw error;
    const e = error as { stdout?: string; stderr?: string };
    return { dir, output: `${e.stdout ?? ""}${e.stderr ?? ""}`, ok: false as const };
  }
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
