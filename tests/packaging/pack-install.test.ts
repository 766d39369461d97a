import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmEnv, ROOT, removeDir } from "../support/packages.ts";

// The install lines `bash scripts/dev.sh pack` prints, run as a user pastes them into a new app: npm, pnpm (the
// toolchain's) and yarn 1 (fetched by npx from the npm registry, the one registry CI reaches; corepack would need its
// own download and shims in the Node installation). The SDK's packages are not on the registry, so pnpm and yarn only
// work with the overrides the lines set first.

const run = promisify(execFile);

/** An app folder with an empty package.json. */
function app(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `app-${name}`, private: true }, null, 2));
  return dir;
}

/** Runs a shell line in `cwd`; resolves with the output, or with the failure's output. */
async function shell(line: string, cwd: string): Promise<{ ok: boolean; output: string }> {
  return run("bash", ["-c", line], { cwd, timeout: 300_000, env: npmEnv(), maxBuffer: 16 * 1024 * 1024 }).then(
    (out) => ({ ok: true, output: out.stdout + out.stderr }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout}${error.stderr}` }),
  );
}

/** What the installed app sees of the SDK: the classes, and which @svc/tracing each package loads. */
const PROBE = [
  'const { createRequire } = require("node:module");',
  'const client = require.resolve("@svc/client");',
  'const otel = require.resolve("@svc/otel");',
  'const tracingOf = (from) => createRequire(from).resolve("@svc/tracing");',
  'const { SvcClient } = require("@svc/client");',
  'const { SvcSpanProcessor } = require("@svc/otel");',
  "console.log(JSON.stringify({ client: typeof SvcClient, processor: typeof SvcSpanProcessor,",
  "  sameTracing: tracingOf(client) === tracingOf(otel) }));",
].join("\n");

describe("the install lines printed by the pack script", () => {
  let root = "";
  const lines: Record<string, string> = {};
  const results: Record<string, { ok: boolean; output: string }> = {};
  const probes: Record<string, string> = {};

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "svc-pack-install-"));
    const packed = await run(process.execPath, [join(ROOT, "scripts", "pack.ts"), "--out", join(root, "packs")], {
      cwd: ROOT,
      timeout: 240_000,
    });
    const printed = packed.stdout.split("\n").map((line) => line.trim());
    lines.npm = printed.find((line) => line.startsWith("npm install ")) ?? "";
    lines.pnpm = printed.find((line) => line.includes("pnpm add ")) ?? "";
    lines.yarn = printed.find((line) => line.includes("yarn@1 add ")) ?? "";
    // The npm line pasted into pnpm: what failed before the overrides.
    lines.bare = `pnpm add ${lines.npm.slice("npm install ".length)}`;
    await Promise.all(
      Object.entries(lines).map(async ([name, line]) => {
        const dir = app(root, name);
        results[name] = await shell(line, dir);
        if (results[name].ok) probes[name] = (await run(process.execPath, ["-e", PROBE], { cwd: dir })).stdout.trim();
      }),
    );
  }, 600_000);

  afterAll(() => removeDir(root));

  it("prints one line for each package manager", () => {
    expect(lines.npm).toMatch(/^npm install \S+svc-tracing-6\.0\.0\.tgz /);
    expect(lines.pnpm).toMatch(/^npm pkg set pnpm\.overrides\.@svc\/tracing=file:\S+ .* && pnpm add /);
    expect(lines.yarn).toMatch(/^npm pkg set resolutions\.@svc\/tracing=file:\S+ .* && npx --yes yarn@1 add /);
  });

  it("the npm line alone fails under pnpm: the registry has no @svc/tracing 6.0.0", () => {
    expect(results.bare?.ok).toBe(false);
    expect(results.bare?.output).toContain("ERR_PNPM_FETCH_404");
  });

  it.each(["npm", "pnpm", "yarn"])("%s: installs, and the app loads one @svc/tracing for client and otel", (name) => {
    expect(results[name]?.ok, results[name]?.output).toBe(true);
    expect(JSON.parse(probes[name] ?? "{}")).toEqual({ client: "function", processor: "function", sameTracing: true });
  });
});
