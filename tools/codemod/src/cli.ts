#!/usr/bin/env node
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { InputError } from "./project.ts";
import { formatReport } from "./report.ts";
import { runCodemod } from "./run.ts";

const USAGE = `Usage: svc-codemod [options] [paths...]

Rewrites code written for the v5 packages (@langfuse/client, @langfuse/tracing, @langfuse/otel,
@langfuse/langchain, @langfuse/core) to the v6 packages (@svc/*). Paths are files or folders (searched
recursively, without node_modules and build output); the default is the current folder. Run it while the
v5 packages are still installed: it follows types to recognize calls exactly.

Options:
  --dry-run          report what would change, write nothing
  --tsconfig <file>  compiler options to read the code with (default: tsconfig.json of the first folder,
                     else of the current folder; JavaScript is always included)
  --json             print the report as JSON
  -h, --help         show this help
  -v, --version      show the version
`;

function main(argv: string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    process.stderr.write(`svc-codemod: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const dryRun = values["dry-run"] === true;
  try {
    const result = runCodemod({ paths: positionals, cwd: process.cwd(), dryRun, tsconfig: values.tsconfig });
    if (values.json) {
      const files = result.files.map(({ before: _before, after: _after, absolutePath: _path, ...file }) => file);
      process.stdout.write(`${JSON.stringify({ ...result, files }, null, 2)}\n`);
    } else {
      process.stdout.write(formatReport(result, { dryRun }));
    }
    return 0;
  } catch (error) {
    const message = error instanceof InputError ? error.message : ((error as Error).stack ?? String(error));
    process.stderr.write(`svc-codemod: ${message}\nNo file was changed.\n`);
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "dry-run": { type: "boolean" },
      tsconfig: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

function version(): string {
  return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
}

process.exitCode = main(process.argv.slice(2));
