import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmEnv, packAll, ROOT, removeDir } from "../support/packages.ts";
import { type ScopeRegistry, startScopeRegistry } from "../support/scope-registry.ts";

// Outside an app, `npx svc doctor` runs whatever the registry calls `svc` (an unrelated package). Each command the
// docs give for the doctor names the package, so it runs @svc/client's `svc` whether the app has it or not. The packed
// tarballs stand in for the registry through a loopback registry of the @svc scope (the packages are not published
// yet; every other package comes from the registry npm is set up with): npm resolves `@svc/client` by name, as it will
// for a user, and the command is run exactly as the docs write it.

const run = promisify(execFile);

/** Every command of the docs and of the SDK's own messages that runs the doctor through a package runner. */
function documentedCommands(): string[] {
  const files = execFileSync("git", ["ls-files", "*.md", "packages/*/src/*.ts", "packages/*/src/**/*.ts"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => file !== "" && !file.includes("/generated/"));
  const command = /\b(?:npx|npm exec|pnpm (?:exec|dlx)|yarn(?: dlx)?|bunx)\s[^`'"#\n]*?\bdoctor\b/g;
  const commands = new Set<string>();
  for (const file of files) {
    // A command may wrap onto the next line right after the runner's name, as inline code in a paragraph does.
    for (const match of readFileSync(join(ROOT, file), "utf8").matchAll(command))
      commands.add(match[0].replace(/\s+/g, " "));
  }
  return [...commands].sort();
}

const RUNS_THE_CLIENT = ["npx @svc/client doctor", "npx --yes @svc/client doctor"];

let packed: { dir: string; tarballs: Record<string, string> };
let registry: ScopeRegistry;
let server: DevServer;
let work = "";
let env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  packed = packAll();
  registry = await startScopeRegistry("@svc", packed.tarballs);
  server = await startDevServer({ port: 0 });
  work = mkdtempSync(join(tmpdir(), "svc-doctor-command-"));
  env = {
    ...npmEnv(),
    npm_config_userconfig: registry.userConfig(work),
    // A cache of its own: npx would otherwise reuse a copy of @svc/client installed by an earlier run.
    npm_config_cache: join(work, "cache"),
    SVC_BASE_URL: server.url,
    SVC_PUBLIC_KEY: server.publicKey,
    SVC_SECRET_KEY: server.secretKey,
  };
}, 240_000);

afterAll(async () => {
  await registry?.close();
  await server?.close();
  removeDir(packed.dir);
  removeDir(work);
});

/** Runs a documented command line in `cwd` through a shell, as a user types it. */
async function runCommand(command: string, cwd: string) {
  try {
    const { stdout, stderr } = await run("sh", ["-c", command], { cwd, env, timeout: 240_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("the commands that run the doctor", () => {
  it("name @svc/client in every doc and message", () => {
    const commands = documentedCommands();

    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(RUNS_THE_CLIENT, command).toContain(command);
  });

  it.each(RUNS_THE_CLIENT)(
    "%s runs @svc/client's doctor in an empty folder, where it is not installed",
    async (command) => {
      const empty = mkdtempSync(join(work, "empty-"));

      const result = await runCommand(command, empty);

      expect(result.stdout.split("\n")[0]).toMatch(/^svc doctor: SDK 6\.\d+\.\d+/);
      expect(result.stdout).toMatch(/^PASS {2}OTLP endpoint/m);
      expect(result.code).toBe(0);
      expect(registry.asked).toContain("@svc/client");
    },
    240_000,
  );

  it("run the app's own @svc/client inside an app that has it, without asking the registry", async () => {
    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
    const install = await runCommand("npm install @svc/client", app);
    expect(install.code, install.stderr).toBe(0);
    const askedBefore = registry.asked.length;

    const result = await runCommand("npx @svc/client doctor", app);

    expect(result.stdout.split("\n")[0]).toMatch(/^svc doctor: SDK 6\.\d+\.\d+/);
    expect(result.code).toBe(0);
    expect(registry.asked.slice(askedBefore)).toEqual([]);
  }, 240_000);
});
