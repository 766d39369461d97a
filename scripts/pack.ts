// Packs the four published packages into tarballs an app can install before a release (build them first).
//   node scripts/pack.ts [--out <dir>]   writes svc-<name>-<version>.tgz into <dir> (default: packs/) and prints the
//                                        npm command that installs them
// `pnpm pack` replaces the `workspace:` ranges between the packages with the version, so the tarballs install
// together with npm, pnpm or yarn. Install them in one command: @svc/client and @svc/langchain need @svc/tracing.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { PUBLISHED, packageDir, ROOT } from "./workspace.ts";

/** Packs every published package into `dir`, replacing older tarballs of them; returns the tarball of each by name. */
export function packPackages(dir: string): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const tarballs: Record<string, string> = {};
  for (const folder of PUBLISHED) {
    const prefix = `svc-${folder}-`;
    for (const old of readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith(".tgz")))
      rmSync(join(dir, old));
    execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: packageDir(folder), stdio: "pipe" });
    const file = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith(".tgz"));
    if (!file) throw new Error(`pnpm pack wrote no tarball for @svc/${folder}`);
    tarballs[`@svc/${folder}`] = join(dir, file);
  }
  return tarballs;
}

function main(): void {
  const at = process.argv.indexOf("--out");
  const dir = resolve(at > 0 ? (process.argv[at + 1] ?? "") : join(ROOT, "packs"));
  const tarballs = packPackages(dir);
  console.log(`Packed into ${dir}:`);
  for (const file of Object.values(tarballs)) console.log(`  ${file}`);
  console.log("\nInstall them in your app (all in one command; add the OpenTelemetry packages you use):");
  console.log(`  npm install ${Object.values(tarballs).join(" ")} @opentelemetry/api @opentelemetry/sdk-node`);
}

if (import.meta.main) main();
