// Builds the published packages with tsup, skipping those whose inputs have not changed since their last build.
//   node scripts/build.ts            builds what changed (a package is rebuilt when its sources, the core's sources,
//                                    its build settings, the lockfile or a package it imports changed)
//   node scripts/build.ts --force    builds every package
// A package's inputs are hashed after each successful build into .tmp/build/<name>.sha256; its build is skipped when
// the hash is the same and its dist/ folder is there. Packages that do not depend on each other build at the same time.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BUILT_AFTER, type PackageFolder, PUBLISHED, packageDir, ROOT } from "./workspace.ts";

const STAMPS = join(ROOT, ".tmp", "build");
/** Files every package build reads besides its own folder. */
const SHARED_INPUTS = [
  "packages/core/src",
  "packages/core/package.json",
  "scripts/tsup-preset.ts",
  "tsconfig.base.json",
];
const OWN_INPUTS = ["src", "package.json", "tsup.config.ts", "tsconfig.json"];

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => filesUnder(join(path, entry.name)));
}

/** Hash of everything the build of `folder` reads, including the hashes of the packages it imports. */
function inputHash(folder: PackageFolder, hashes: Map<PackageFolder, string>): string {
  const hash = createHash("sha256");
  const paths = [
    ...SHARED_INPUTS.map((p) => join(ROOT, p)),
    ...OWN_INPUTS.map((p) => join(packageDir(folder), p)),
    join(ROOT, "pnpm-lock.yaml"),
  ];
  for (const file of paths.flatMap(filesUnder)) {
    hash.update(relative(ROOT, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  for (const dependency of BUILT_AFTER[folder]) hash.update(`${dependency}:${hashes.get(dependency)}\0`);
  return hash.digest("hex");
}

function stampFile(folder: PackageFolder): string {
  return join(STAMPS, `${folder}.sha256`);
}

function isUpToDate(folder: PackageFolder, hash: string): boolean {
  const stamp = stampFile(folder);
  return (
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === hash &&
    existsSync(join(packageDir(folder), "dist", "index.js"))
  );
}

/** Runs tsup for one package; its output is printed only when it fails. */
function build(folder: PackageFolder): Promise<{ ok: boolean; output: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("pnpm", ["run", "--silent", "build"], { cwd: packageDir(folder), stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("close", (code) =>
      resolve({ ok: code === 0, output, seconds: Math.round((performance.now() - started) / 100) / 10 }),
    );
  });
}

async function main(): Promise<number> {
  const force = process.argv.includes("--force");
  mkdirSync(STAMPS, { recursive: true });
  const hashes = new Map<PackageFolder, string>();
  for (const folder of PUBLISHED) hashes.set(folder, inputHash(folder, hashes));

  const done = new Map<PackageFolder, Promise<boolean>>();
  const run = (folder: PackageFolder): Promise<boolean> => {
    let result = done.get(folder);
    if (result) return result;
    result = Promise.all(BUILT_AFTER[folder].map(run)).then(async (dependencies) => {
      const name = `@svc/${folder}`;
      if (!dependencies.every(Boolean)) return false;
      const hash = hashes.get(folder) ?? "";
      if (!force && isUpToDate(folder, hash)) {
        console.log(`${name}: up to date`);
        return true;
      }
      rmSync(stampFile(folder), { force: true });
      const outcome = await build(folder);
      if (!outcome.ok) {
        console.error(`${name}: build failed\n${outcome.output}`);
        return false;
      }
      writeFileSync(stampFile(folder), hash);
      console.log(`${name}: built in ${outcome.seconds} s`);
      return true;
    });
    done.set(folder, result);
    return result;
  };
  const results = await Promise.all(PUBLISHED.map(run));
  return results.every(Boolean) ? 0 : 1;
}

process.exitCode = await main();
