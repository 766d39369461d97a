// Packs the four published packages and the codemod into tarballs an app can use before a release (build them first).
//   node scripts/pack.ts [--out <dir>]   writes svc-<name>-<version>.tgz and svc-codemod-<version>.tgz into <dir>
//                                        (default: packs/) and prints the commands that run the codemod and install
//                                        the packages
// `pnpm pack` replaces the `workspace:` ranges between the packages with the version (`@svc/tracing: 6.0.0`). npm
// takes the tarballs given in the same command for those versions; pnpm and yarn ask the registry for them, where they
// are not yet (ERR_PNPM_FETCH_404), unless the app's package.json points each @svc package at its tarball
// (`pnpm.overrides` for pnpm, `resolutions` for yarn). The commands printed below do that with `npm pkg set` first.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { PUBLISHED, packageDir, ROOT } from "./workspace.ts";

/** Packs the package in `folder` into `dir`, replacing older tarballs of it; returns the tarball's path. */
function packFolder(folder: string, prefix: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const old of readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith(".tgz"))) rmSync(join(dir, old));
  execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: folder, stdio: "pipe" });
  const file = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith(".tgz"));
  if (!file) throw new Error(`pnpm pack wrote no tarball for ${folder}`);
  return join(dir, file);
}

/** Packs every published package into `dir`, replacing older tarballs of them; returns the tarball of each by name. */
export function packPackages(dir: string): Record<string, string> {
  const tarballs: Record<string, string> = {};
  for (const folder of PUBLISHED) tarballs[`@svc/${folder}`] = packFolder(packageDir(folder), `svc-${folder}-`, dir);
  return tarballs;
}

/** Packs the codemod (`@svc/codemod`) into `dir`, replacing older tarballs of it; returns the tarball's path. */
export function packCodemod(dir: string): string {
  return packFolder(join(ROOT, "tools", "codemod"), "svc-codemod-", dir);
}

/** The command that runs a packed codemod in the current folder, as `npx @svc/codemod@6` does once published. */
export function codemodCommand(tarball: string, args = "--dry-run ."): string {
  return `npx --yes --package ${tarball} svc-codemod ${args}`;
}

/** The packages an app installs next to the SDK's in the printed commands. */
const PEERS = "@opentelemetry/api @opentelemetry/sdk-node";

/**
 * The commands that install the packed packages into the app in the current folder, by package manager. pnpm and
 * yarn 1 get every @svc package pinned to its tarball first, in the app's package.json, so that the dependencies
 * between the packages resolve to the tarballs and not to the registry.
 */
export function installCommands(
  tarballs: Record<string, string>,
  peers = PEERS,
): Record<"npm" | "pnpm" | "yarn", string> {
  const files = Object.values(tarballs).join(" ");
  const pin = (field: string) =>
    `npm pkg set ${Object.entries(tarballs)
      .map(([name, file]) => `${field}.${name}=file:${file}`)
      .join(" ")}`;
  return {
    npm: `npm install ${files} ${peers}`,
    pnpm: `${pin("pnpm.overrides")} && pnpm add ${files} ${peers}`,
    yarn: `${pin("resolutions")} && npx --yes yarn@1 add ${files} ${peers}`,
  };
}

function main(): void {
  const at = process.argv.indexOf("--out");
  const dir = resolve(at > 0 ? (process.argv[at + 1] ?? "") : join(ROOT, "packs"));
  const tarballs = packPackages(dir);
  const codemod = packCodemod(dir);
  console.log(`Packed into ${dir}:`);
  for (const file of [...Object.values(tarballs), codemod]) console.log(`  ${file}`);
  console.log("\nMigrating a v5 app: in its folder, with the v5 packages still installed and your work committed:");
  console.log(`  ${codemodCommand(codemod)}   # what would change; writes nothing`);
  console.log(`  ${codemodCommand(codemod, ".")}             # rewrite`);
  const install = installCommands(tarballs);
  console.log("\nInstall them in your app (all in one command; add the OpenTelemetry packages you use):");
  console.log(`  ${install.npm}`);
  console.log("With pnpm or yarn, which need each @svc package pointed at its tarball in package.json first:");
  console.log(`  ${install.pnpm}`);
  console.log(`  ${install.yarn}`);
}

if (import.meta.main) main();
