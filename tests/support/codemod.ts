import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { onTestFinished } from "vitest";
import { type RunResult, runCodemod } from "../../tools/codemod/src/run.ts";
import { ROOT, removeDir } from "./packages.ts";

/** The fixture projects: `before/` is v5 code, `after/` what the codemod makes of it. */
export const FIXTURES_DIR = join(ROOT, "tests", "fixtures", "codemod");
export const FIXTURES = ["ts-esm", "ts-cjs", "js-esm", "js-cjs"] as const;

/**
 * The v5 packages (and their peers) the codemod's tests read types from: devDependencies of tools/codemod, so that
 * the workspace install provides them.
 */
const V5_MODULES = join(ROOT, "tools", "codemod", "node_modules");

/** A temporary folder, removed after the current test (with `keep`, the caller removes it: outside a test). */
export function tempFolder(prefix: string, options: { keep?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!options.keep) onTestFinished(() => removeDir(dir));
  return dir;
}

/**
 * A project folder holding `files`, inside a folder whose node_modules has the v5 packages when `v5Types` is set
 * (else nothing resolves them, as in a project whose v5 packages were removed).
 */
export function projectWith(files: Record<string, string>, options: { v5Types: boolean; keep?: boolean }): string {
  const parent = tempFolder("svc-codemod-", { keep: options.keep });
  if (options.v5Types) symlinkSync(V5_MODULES, join(parent, "node_modules"), "dir");
  const dir = join(parent, "project");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A folder holding a copy of each fixture project (`<dir>/<name>/`), its v5 code or its expected v6 code, set up as
 * {@link projectWith} does.
 */
export function fixturesCopy(options: { v5Types: boolean; version: "before" | "after"; keep?: boolean }): string {
  const dir = projectWith({}, options);
  for (const name of FIXTURES) cpSync(join(FIXTURES_DIR, name, options.version), join(dir, name), { recursive: true });
  return dir;
}

/** Every file under `dir` (node_modules left out), by path relative to `dir`. */
export function readTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (relative(dir, path).split(/[\\/]/).includes("node_modules")) continue;
    files[relative(dir, path).replaceAll("\\", "/")] = readFileSync(path, "utf8");
  }
  return files;
}

/**
 * Runs the codemod over a project with `files` and returns the result and the files afterwards. With `keep`, the
 * caller removes the project (`removeDir(join(dir, ".."))`), for runs made outside a test.
 */
export function rewrite(
  files: Record<string, string>,
  options: { v5Types: boolean; dryRun?: boolean; keep?: boolean },
) {
  const dir = projectWith(files, options);
  const result: RunResult = runCodemod({ paths: ["."], cwd: dir, dryRun: options.dryRun ?? false });
  const after = readTree(dir);
  return { dir, result, after, text: (path: string) => after[path] ?? "" };
}
