import { RULES, type RuleId } from "./context.ts";
import type { FileResult, LocatedFinding, RunResult } from "./run.ts";
import { ENV_NAMES } from "./tables/env.ts";
import { own } from "./tables/own.ts";
import { migrationLink } from "./tables/sections.ts";

/** The summary printed after a run: what changed per file and per rule, what to check, what was left as is. */
export function formatReport(result: RunResult, options: { dryRun: boolean }): string {
  const lines: string[] = [];
  const changed = result.files.filter((file) => file.changed);
  const verb = options.dryRun ? "would change" : "changed";
  lines.push(
    `svc-codemod: ${verb} ${changed.length} of ${result.scanned} files${options.dryRun ? " (dry run: nothing written)" : ""}`,
  );
  for (const warning of result.warnings) lines.push("", `warning: ${warning}`);
  if (changed.length > 0) {
    lines.push("", "Changes per file:");
    for (const file of changed) lines.push(`  ${file.path}: ${countsText(file)}`);
    lines.push("", "Changes per rule:");
    for (const rule of Object.keys(RULES) as RuleId[]) {
      const files = changed.filter((file) => (file.counts[rule] ?? 0) > 0);
      if (files.length === 0) continue;
      const total = files.reduce((sum, file) => sum + (file.counts[rule] ?? 0), 0);
      const where = `${files.length} file${files.length === 1 ? "" : "s"}`;
      lines.push(`  ${rule.padEnd(16)} ${String(total).padStart(4)} in ${where.padEnd(9)} ${RULES[rule]}`);
    }
  }
  const findings = result.files.flatMap((file) => file.findings.map((finding) => ({ file, finding })));
  section(lines, "Rewritten; check that the behaviour is what you want:", findings, "review");
  section(
    lines,
    'Left as is, marked with a "svc-codemod:" comment (or, in package.json, only here):',
    findings,
    "unchanged",
  );
  const env = [...new Set(result.files.flatMap((file) => file.envNames))].sort();
  if (env.length > 0) {
    lines.push(
      "",
      `Environment variables renamed in code: ${env.map((name) => `${name} -> ${own(ENV_NAMES, name)}`).join(", ")}.`,
      "Rename them where they are set too (.env files, CI, hosting): v6 reads only the SVC_ names.",
    );
  }
  const mentions = result.files.flatMap((file) => file.envMentions.map((m) => `${file.path}:${m.line} ${m.name}`));
  if (mentions.length > 0) {
    lines.push(
      "",
      `Text that names v5 environment variables, left as it is (update messages and docs): (${mentions.length})`,
    );
    for (const mention of mentions) lines.push(`  ${mention}`);
  }
  if (changed.length > 0 || findings.length > 0 || mentions.length > 0) {
    lines.push(
      "",
      options.dryRun
        ? "Run again without --dry-run to write the changes."
        : 'Next: install the v6 packages, run your type checker and tests, and search for "svc-codemod:" comments.',
    );
  }
  return `${lines.join("\n")}\n`;
}

function countsText(file: FileResult): string {
  return (Object.keys(RULES) as RuleId[])
    .filter((rule) => (file.counts[rule] ?? 0) > 0)
    .map((rule) => `${rule} ${file.counts[rule]}`)
    .join(", ");
}

function section(
  lines: string[],
  title: string,
  findings: { file: FileResult; finding: LocatedFinding }[],
  kind: LocatedFinding["kind"],
): void {
  const selected = findings.filter(({ finding }) => finding.kind === kind);
  if (selected.length === 0) return;
  lines.push("", `${title} (${selected.length})`);
  for (const { file, finding } of selected) {
    lines.push(
      `  ${file.path}:${finding.line}  ${finding.rule}: ${finding.message} (${finding.link ?? migrationLink(finding.section)})`,
    );
  }
}
