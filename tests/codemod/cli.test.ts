import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectWith, readTree } from "../support/codemod.ts";
import { ROOT } from "../support/packages.ts";

// The command as users run it: `node` on the source (the packaging tests run the built and packed one).
const CLI = join(ROOT, "tools", "codemod", "src", "cli.ts");

function svcCodemod(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const V5 = {
  "src/app.ts": [
    'import { LangfuseClient } from "@langfuse/client";',
    "const langfuse = new LangfuseClient({ publicKey: process.env.LANGFUSE_PUBLIC_KEY });",
    "export const prompt = langfuse.getPrompt('greeting');",
    "export const runs = langfuse.getDatasetRuns('questions');",
    "",
  ].join("\n"),
  "package.json": '{ "dependencies": { "@langfuse/client": "^5.10.1" } }\n',
};

describe("svc-codemod", () => {
  it("with --dry-run prints what it would change per file and per rule, what it leaves, and writes nothing", () => {
    const dir = projectWith(V5, { v5Types: true });

    const run = svcCodemod(dir, "--dry-run");

    expect(run.status).toBe(0);
    expect(readTree(dir)).toEqual(V5);
    expect(run.stdout).toContain("svc-codemod: would change 2 of 2 files (dry run: nothing written)");
    expect(run.stdout).toMatch(/^ {2}src\/app\.ts: packages 1, exports 1, env 1, client-aliases 1$/m);
    expect(run.stdout).toMatch(/^ {2}client-aliases +1 in 1 file +removed SvcClient shortcuts/m);
    expect(run.stdout).toContain(
      "  src/app.ts:4  client-aliases: dataset runs are experiments in v6: read them with api.experiments.list()",
    );
    expect(run.stdout).toContain("LANGFUSE_PUBLIC_KEY -> SVC_PUBLIC_KEY");
    expect(run.stdout).toContain("Run again without --dry-run to write the changes.");
  });

  it("rewrites the files, and reports the lines of the rewritten files", () => {
    const dir = projectWith(V5, { v5Types: true });

    const run = svcCodemod(dir, "src", "package.json");

    expect(run.status).toBe(0);
    expect(run.stdout).toContain("svc-codemod: changed 2 of 2 files\n");
    expect(run.stdout).toContain("  src/app.ts:5  client-aliases: dataset runs");
    const after = readTree(dir);
    expect(after["src/app.ts"]?.split("\n")[4]).toBe("export const runs = langfuse.getDatasetRuns('questions');");
    expect(after["package.json"]).toBe('{ "dependencies": { "@svc/client": "^6.0.0" } }\n');
  });

  it("prints the report as JSON with --json", () => {
    const dir = projectWith(V5, { v5Types: false });

    const run = svcCodemod(dir, "--json", "--dry-run");

    const report = JSON.parse(run.stdout) as { files: { path: string; counts: object }[]; warnings: string[] };
    expect(report.files.map((file) => file.path)).toEqual(["src/app.ts", "package.json"]);
    expect(report.files[0]?.counts).toEqual({ packages: 1, exports: 1, env: 1, "client-aliases": 1 });
    expect(report.warnings[0]).toContain("@langfuse/client did not resolve");
  });

  it("fails with a message and changes nothing for a path that does not exist", () => {
    const dir = projectWith(V5, { v5Types: false });

    const run = svcCodemod(dir, "src", "missing");

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`svc-codemod: no such file or folder: ${join(dir, "missing")}\nNo file was changed.`);
    expect(readTree(dir)).toEqual(V5);
  });

  it("fails with the usage for an unknown option, and shows it for --help", () => {
    const dir = projectWith({}, { v5Types: false });

    const wrong = svcCodemod(dir, "--dryrun");
    const help = svcCodemod(dir, "--help");

    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Usage: svc-codemod [options] [paths...]");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--dry-run          report what would change, write nothing");
  });
});
