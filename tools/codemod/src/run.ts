import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { Node, type SourceFile } from "ts-morph";
import { FileContext, type Finding, type RuleId } from "./context.ts";
import { applyEdits, lineOf, type TextEdit } from "./edits.ts";
import { loadProject } from "./project.ts";
import { rewriteApiCalls } from "./rules/api-calls.ts";
import { rewriteAttributeKeys } from "./rules/attribute-keys.ts";
import { markDatasetLinks } from "./rules/dataset-link.ts";
import { rewriteEnvNames } from "./rules/env.ts";
import { rewriteImports } from "./rules/imports.ts";
import { rewritePackageJson } from "./rules/package-json.ts";
import { markRemovedMethods } from "./rules/removed-methods.ts";
import { rewriteTraceIO } from "./rules/trace-io.ts";
import { v5PackageOf } from "./tables/exports.ts";
import { SECTIONS } from "./tables/sections.ts";
import { writeAtomically } from "./write.ts";

/** What to rewrite, and whether to write the result. */
export interface RunOptions {
  /** Files and folders (searched recursively); the working folder when empty. */
  paths: readonly string[];
  cwd: string;
  /** Compute and report everything, write nothing. */
  dryRun: boolean;
  /** The tsconfig.json whose compiler options to use; by default the one of the first folder, or of `cwd`. */
  tsconfig?: string;
}

/** A finding with the line it is on, in the file as it is on disk after the run. */
export interface LocatedFinding extends Finding {
  line: number;
}

/** The outcome for one file that changed or has findings. */
export interface FileResult {
  /** Path relative to the working folder. */
  path: string;
  absolutePath: string;
  changed: boolean;
  counts: Partial<Record<RuleId, number>>;
  findings: LocatedFinding[];
  /** v5 environment variable names the file no longer uses. */
  envNames: string[];
  /** v5 environment variable names inside other text of the file (messages), left as they are. */
  envMentions: { line: number; name: string }[];
  before: string;
  after: string;
}

/** The outcome of a run. */
export interface RunResult {
  files: FileResult[];
  /** How many source and package.json files were read. */
  scanned: number;
  warnings: string[];
  written: boolean;
}

/** Rewrites the v5 code under `options.paths` to v6; see the package README for the rules. */
export function runCodemod(options: RunOptions): RunResult {
  const loaded = loadProject(options.paths, options.cwd, options.tsconfig);
  const warnings = [...loaded.warnings];
  if (loaded.untypedPackages.size > 0) {
    const names = [...loaded.untypedPackages].map((pkg) => `@langfuse/${pkg}`).join(", ");
    warnings.push(
      `${names} did not resolve: calls into ${loaded.untypedPackages.size > 1 ? "them" : "it"} are recognized by ` +
        "their names only. For exact results run the codemod while the v5 packages are still installed.",
    );
  }
  const environment = { typedPackages: loaded.typedPackages, untypedPackages: loaded.untypedPackages };
  const files: FileResult[] = [];
  for (const sourceFile of loaded.sourceFiles) {
    const ctx = new FileContext(sourceFile, environment, namesV5Package(sourceFile));
    const rules = [
      rewriteImports,
      rewriteEnvNames,
      rewriteAttributeKeys,
      rewriteApiCalls,
      rewriteTraceIO,
      markDatasetLinks,
      markRemovedMethods,
    ];
    for (const rule of rules) rule(ctx);
    const text = sourceFile.getFullText();
    const result = fileResult(options, sourceFile.getFilePath(), text, ctx.edits, ctx.findings, ctx.envMentions);
    if (!result) continue;
    result.counts = Object.fromEntries(ctx.counts);
    result.envNames = [...ctx.envNames].sort();
    files.push(result);
  }
  for (const path of loaded.packageJsons) {
    const text = readFileSync(path, "utf8");
    const rewrite = rewritePackageJson(path, text);
    if (!rewrite) continue;
    const result = fileResult(options, path, text, rewrite.edits, rewrite.findings);
    if (!result) continue;
    result.counts = Object.fromEntries(rewrite.counts);
    files.push(result);
  }
  const changed = files.filter((file) => file.changed);
  if (!options.dryRun && changed.length > 0) {
    writeAtomically(changed.map((file) => ({ path: file.absolutePath, text: withOriginalBom(file) })));
  }
  const scanned = loaded.sourceFiles.length + loaded.packageJsons.length;
  return { files, scanned, warnings, written: !options.dryRun && changed.length > 0 };
}

/** Applies a file's edits; undefined when nothing changed and nothing was found. */
function fileResult(
  options: RunOptions,
  path: string,
  before: string,
  edits: TextEdit[],
  findings: Finding[],
  mentions: readonly { position: number; name: string }[] = [],
): FileResult | undefined {
  if (edits.length === 0 && findings.length === 0 && mentions.length === 0) return undefined;
  const applied = applyEdits(before, edits);
  const all = [...findings];
  for (const edit of applied.skipped) {
    all.push({
      rule: "packages",
      kind: "unchanged",
      message: "two changes overlapped here; this one was not made",
      section: SECTIONS.packages,
      position: edit.start,
    });
  }
  const after = applied.text;
  const lineAt = (position: number) =>
    options.dryRun ? lineOf(before, position) : lineOf(after, applied.mapPosition(position));
  const located = all
    .map((finding) => ({
      ...finding,
      line: lineAt(finding.position),
    }))
    .sort((a, b) => a.line - b.line);
  return {
    path: relative(options.cwd, path),
    absolutePath: path,
    changed: after !== before,
    counts: {},
    findings: located,
    envNames: [],
    envMentions: mentions.map((mention) => ({ line: lineAt(mention.position), name: mention.name })),
    before,
    after,
  };
}

/** Whether the file names a @langfuse package anywhere (imports, requires, mocks, import types). */
function namesV5Package(sourceFile: SourceFile): boolean {
  return sourceFile.getDescendants().some((node) => Node.isStringLiteral(node) && v5PackageOf(node.getLiteralValue()));
}

/** The new text, with the byte order mark the file had (the compiler drops it when reading). */
function withOriginalBom(file: FileResult): string {
  const original = readFileSync(file.absolutePath, "utf8");
  return original.startsWith("\uFEFF") && !file.after.startsWith("\uFEFF") ? `\uFEFF${file.after}` : file.after;
}
