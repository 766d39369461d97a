// API reports of the published packages, read from their built declarations (run `pnpm build` first).
//   node scripts/api-report.ts           writes packages/<name>/api-report/<name>.api.md, one per entry point
//   node scripts/api-report.ts --check   exits 1 when an exported surface differs from its checked-in report,
//                                        or when a built declaration file contains the tag @internal
// For tests: --packages-dir <dir> reads the packages from another folder, --reports-dir <dir> compares with (or
// writes) the reports in <dir>/<name>/ instead of each package's api-report/ folder.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from "@microsoft/api-extractor";
import { PUBLISHED } from "./workspace.ts";

const root = join(import.meta.dirname, "..");
const DECLARATION = /\.d\.(?:c|m)?ts$/;

/** One entry point of a package: its export path, its built declarations and the name of its report. */
export interface EntryPoint {
  packageName: string;
  exportPath: string;
  declarationFile: string;
  reportName: string;
}

type ExportsMap = Record<string, string | { import?: { types?: string } }>;

/** The entry points of the package in `dir`, from its exports map (`./package.json` is no entry point). */
export function entryPoints(dir: string, folderName: string): EntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; exports: ExportsMap };
  return Object.entries(manifest.exports).flatMap(([exportPath, target]) => {
    const types = typeof target === "object" ? target.import?.types : undefined;
    if (types === undefined) return [];
    const suffix = exportPath === "." ? "" : `-${exportPath.slice(2).replace(/\//g, "-")}`;
    return [
      { packageName: manifest.name, exportPath, declarationFile: join(dir, types), reportName: folderName + suffix },
    ];
  });
}

/** `file:line: text` for every line of a built declaration file under `dir` that contains the tag `@internal`. */
export function internalTags(dir: string): string[] {
  const found: string[] = [];
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !DECLARATION.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.includes("@internal")) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

function extractorConfig(entry: EntryPoint, packageDir: string, reportFolder: string, tempFolder: string) {
  const configObject: IConfigFile = {
    projectFolder: packageDir,
    mainEntryPointFilePath: entry.declarationFile,
    bundledPackages: [],
    newlineKind: "lf",
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          module: "Preserve",
          moduleResolution: "Bundler",
          strict: true,
          types: ["node"],
        },
        files: [entry.declarationFile],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.reportName,
      reportFolder,
      reportTempFolder: tempFolder,
      includeForgottenExports: false,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        // Findings about the surface (a type it uses but does not export, a missing doc comment) go into the
        // report, where a review sees them; only the report's text decides the check.
        default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
        // Release tags (@public, @beta) are not used: everything exported is public.
        "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None },
        "ae-wrong-input-file-type": { logLevel: ExtractorLogLevel.Error },
      },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
  return ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: undefined,
    packageJsonFullPath: join(packageDir, "package.json"),
  });
}

interface Options {
  check: boolean;
  packagesDir: string;
  reportsDir: string | undefined;
  only: string[];
}

function parseArgs(args: string[]): Options {
  const value = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const only = value("--package");
  return {
    check: args.includes("--check"),
    packagesDir: value("--packages-dir") ?? join(root, "packages"),
    reportsDir: value("--reports-dir"),
    only: only ? [only] : [...PUBLISHED],
  };
}

function showDiff(expected: string, actual: string): void {
  const diff = spawnSync("git", ["diff", "--no-index", "--no-color", "--", expected, actual], { encoding: "utf8" });
  const lines = (diff.stdout ?? "").split("\n");
  if (lines.length > 1) console.error(lines.slice(0, 60).join("\n") + (lines.length > 60 ? "\n..." : ""));
}

/** Writes or checks every report; returns the number of problems found. */
function run(options: Options): number {
  let problems = 0;
  const temp = mkdtempSync(join(tmpdir(), "svc-api-report-"));
  try {
    for (const name of options.only) {
      const packageDir = join(options.packagesDir, name);
      const tags = internalTags(join(packageDir, "dist"));
      if (tags.length > 0) {
        problems++;
        console.error(
          `api-report: the built declarations of ${name} contain the tag @internal; a published declaration ` +
            `is public and documented as such, or not exported at all:\n  ${tags.join("\n  ")}`,
        );
      }
      const reportFolder = options.reportsDir ? join(options.reportsDir, name) : join(packageDir, "api-report");
      mkdirSync(reportFolder, { recursive: true });
      for (const entry of entryPoints(packageDir, name)) {
        problems += report(entry, packageDir, reportFolder, temp, options.check);
      }
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return problems;
}

function report(entry: EntryPoint, packageDir: string, reportFolder: string, temp: string, check: boolean): number {
  const label = `${entry.packageName} (${entry.exportPath})`;
  if (!existsSync(entry.declarationFile)) {
    console.error(`api-report: ${relative(root, entry.declarationFile)} is missing; run \`pnpm build\` first.`);
    return 1;
  }
  const errors: string[] = [];
  Extractor.invoke(extractorConfig(entry, packageDir, reportFolder, temp), {
    localBuild: false,
    messageCallback: (message) => {
      message.handled = true;
      if (message.logLevel === ExtractorLogLevel.Error) errors.push(message.formatMessageWithLocation(root));
    },
  });
  const checkedIn = join(reportFolder, `${entry.reportName}.api.md`);
  if (errors.length > 0) {
    console.error(`api-report: ${label}: API Extractor failed:\n  ${errors.join("\n  ")}`);
    return 1;
  }
  const produced = join(temp, `${entry.reportName}.api.md`);
  const text = withoutLocations(readFileSync(produced, "utf8"));
  writeFileSync(produced, text);
  const current = existsSync(checkedIn) ? readFileSync(checkedIn, "utf8") : undefined;
  if (current === text) return 0;
  if (check) {
    console.error(
      `api-report: the exported surface of ${label} differs from ${relative(root, checkedIn)}. ` +
        "Run `pnpm api-report` and review the change before committing it.",
    );
    if (current !== undefined) showDiff(checkedIn, produced);
    return 1;
  }
  writeFileSync(checkedIn, text);
  console.log(`api-report: updated ${relative(root, checkedIn)}`);
  return 0;
}

/**
 * The report without the declaration file locations of its findings (`// dist/index.d.ts:308:5 - (ae-...)`): line
 * numbers and chunk names move with every unrelated edit, the findings themselves are what a review reads.
 */
function withoutLocations(text: string): string {
  return text.replace(/^\/\/ [^\s]+\.d\.[cm]?ts:\d+:\d+ - /gm, "// ");
}

if (import.meta.filename === process.argv[1]) {
  const options = parseArgs(process.argv.slice(2));
  const problems = run(options);
  if (problems === 0 && options.check) console.log("api-report: every report matches the built declarations.");
  process.exitCode = problems === 0 ? 0 : 1;
}
