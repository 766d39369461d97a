// Builds the published packages and commands with tsup, skipping those whose inputs have not changed since their
// last build.
//   node scripts/build.ts            builds what changed (a package is rebuilt when its sources, the core's sources,
//                                    its build settings, the lockfile or a package it imports changed)
//   node scripts/build.ts --force    builds every package
// A package's inputs are hashed after each successful build into .tmp/build/<name>.sha256; its build is skipped when
// the hash is the same and its dist/ folder is there. Packages that do not depend on each other build at the same time.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BUILT_AFTER, COMMANDS, type PackageFolder, PUBLISHED, packageDir, ROOT } from "./workspace.ts";

const STAMPS = join(ROOT, ".tmp", "build");
/** Files every package build reads besides its own folder. */
const SHARED_INPUTS = [
  "packages/core/src",
  "packages/core/package.json",
  "scripts/tsup-preset.ts",
  "tsconfig.base.json",
];
const OWN_INPUTS = ["src", "package.json", "tsup.config.ts", "tsconfig.json"];

/** Something the build makes: a published package (it bundles the core) or a command (it does not). */
interface Target {
  name: string;
  dir: string;
  /** A file its build writes, whose absence means it must be built. */
  artifact: string;
  after: readonly string[];
  sharedInputs: readonly string[];
}

function targets(): Map<string, Target> {
  const all = new Map<string, Target>();
  for (const folder of PUBLISHED)
    all.set(folder, {
      name: `@svc/${folder}`,
      dir: packageDir(folder),
      artifact: "dist/index.js",
      after: BUILT_AFTER[folder as PackageFolder],
      sharedInputs: SHARED_INPUTS,
    });
  for (const folder of COMMANDS) {
    const dir = join(ROOT, folder);
    const { name, bin } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      name: string;
      bin: Record<string, string>;
    };
    const artifact = Object.values(bin)[0] ?? "dist/index.js";
    all.set(folder, { name, dir, artifact, after: [], sharedInputs: ["scripts/tsup-preset.ts", "tsconfig.base.json"] });
  }
  return all;
}

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => filesUnder(join(path, entry.name)));
}

/** Hash of everything the build of a target reads, including the hashes of the packages it imports. */
function inputHash(target: Target, hashes: Map<string, string>): string {
  const hash = createHash("sha256");
  const paths = [
    ...target.sharedInputs.map((p) => join(ROOT, p)),
    ...OWN_INPUTS.map((p) => join(target.dir, p)),
    join(ROOT, "pnpm-lock.yaml"),
  ];
  for (const file of paths.flatMap(filesUnder)) {
    hash.update(relative(ROOT, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  for (const dependency of target.after) hash.update(`${dependency}:${hashes.get(dependency)}\0`);
  return hash.digest("hex");
}

function stampFile(folder: string): string {
  return join(STAMPS, `${folder.replaceAll("/", "-")}.sha256`);
}

function isUpToDate(folder: string, target: Target, hash: string): boolean {
  const stamp = stampFile(folder);
  return existsSync(stamp) && readFileSync(stamp, "utf8") === hash && existsSync(join(target.dir, target.artifact));
}

/** Runs tsup for one target; its output is printed only when it fails. */
function build(target: Target): Promise<{ ok: boolean; output: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("pnpm", ["run", "--silent", "build"], { cwd: target.dir, stdio: "pipe" });
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
  const all = targets();
  const hashes = new Map<string, string>();
  for (const [folder, target] of all) hashes.set(folder, inputHash(target, hashes));

  const done = new Map<string, Promise<boolean>>();
  const run = (folder: string): Promise<boolean> => {
    let result = done.get(folder);
    if (result) return result;
    const target = all.get(folder) as Target;
    result = Promise.all(target.after.map(run)).then(async (dependencies) => {
      const { name } = target;
      if (!dependencies.every(Boolean)) return false;
      const hash = hashes.get(folder) ?? "";
      if (!force && isUpToDate(folder, target, hash)) {
        console.log(`${name}: up to date`);
        return true;
      }
      rmSync(stampFile(folder), { force: true });
      const outcome = await build(target);
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
  const results = await Promise.all([...all.keys()].map(run));
  return results.every(Boolean) ? 0 : 1;
}

process.exitCode = await main();
