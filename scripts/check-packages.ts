// Publishing checks for every published package: publint and @arethetypeswrong/cli on the packed tarball of each
// SDK package, that each command (`bin`) of a package is built and runs, one shared version across the four (they
// are released in lockstep), and publint on the codemod, a command with no module to import (so nothing for attw to
// check) that is versioned on its own.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS, PUBLISHED } from "./workspace.ts";

const root = join(import.meta.dirname, "..");

function run(command: string, args: string[], cwd: string): boolean {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  return result.status === 0;
}

let ok = true;
const versions = new Set<string>();
for (const name of PUBLISHED) {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    version: string;
    bin?: Record<string, string>;
  };
  versions.add(manifest.version);
  console.log(`\n== @svc/${name}@${manifest.version}`);
  ok = run("publint", ["--strict", "--pack", "pnpm"], dir) && ok;
  // Every resolution is checked, node10 too: the packages need Node 22, but bundlers and TypeScript's `node`
  // resolution still find subpaths without the exports map (hence the `browser/` folder of @svc/client).
  ok = run("attw", ["--pack", ".", "--format", "table-flipped"], dir) && ok;
  for (const [command, path] of Object.entries(manifest.bin ?? {}))
    ok = checkCommand(dir, command, path, manifest.version) && ok;
}
for (const folder of COMMANDS) {
  const dir = join(root, folder);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string };
  console.log(`\n== ${manifest.name}@${manifest.version} (command)`);
  ok = run("publint", ["--strict", "--pack", "pnpm"], dir) && ok;
}
if (versions.size !== 1) {
  console.error(`Package versions differ: ${[...versions].join(", ")}. The four packages are released in lockstep.`);
  ok = false;
}
process.exit(ok ? 0 : 1);

/** A command of a package is built, starts with a `node` shebang, and prints the package version with `--version`. */
function checkCommand(dir: string, command: string, path: string, version: string): boolean {
  const file = join(dir, path);
  if (!existsSync(file)) {
    console.error(`bin ${command}: ${path} is not built`);
    return false;
  }
  if (!readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n")) {
    console.error(`bin ${command}: ${path} does not start with #!/usr/bin/env node`);
    return false;
  }
  const result = spawnSync(process.execPath, [file, "--version"], { encoding: "utf8", timeout: 30_000 });
  if (result.status !== 0 || result.stdout.trim() !== version) {
    console.error(
      `bin ${command}: \`${path} --version\` printed "${result.stdout.trim()}" (exit ${result.status}), not ${version}`,
    );
    return false;
  }
  console.log(`bin ${command}: ${path} runs (--version ${version})`);
  return true;
}
