import type { Evaluation, EvaluationFailure, ExperimentItemResult, FormatOptions } from "./types.js";

/** What {@link formatExperimentResult} renders; the fields of an experiment result minus `format`. */
export interface FormattableResult {
  runName: string;
  itemResults: ExperimentItemResult<unknown, unknown, unknown, unknown>[];
  runEvaluations: Evaluation[];
  runEvaluationFailures: EvaluationFailure[];
  experimentUrl: string | undefined;
}

const EXCERPT_WIDTH = 40;
const COLUMN_GAP = "  ";

/**
 * Renders a run as plain text: a table of items (input, output excerpt, evaluations), the average of
 * each numeric item evaluation, failures, run evaluations and the experiment link.
 */
export function formatExperimentResult(result: FormattableResult, options: FormatOptions = {}): string {
  const items = result.itemResults;
  const failedCount = items.filter((r) => r.error !== undefined).length;
  const counts = `${items.length} item${items.length === 1 ? "" : "s"}${failedCount ? `, ${failedCount} failed` : ""}`;
  const sections = [`Experiment run "${result.runName}" (${counts})`];

  if (options.includeItemResults ?? true) sections.push(itemTable(items));
  const averages = averageLines(items);
  if (averages.length) sections.push(["Item evaluation averages", ...averages].join("\n"));
  const failures = failureLines(items);
  if (failures.length) sections.push(["Failures", ...failures].join("\n"));
  if (result.runEvaluations.length || result.runEvaluationFailures.length) {
    const lines = result.runEvaluations.map((e) => `  ${formatEvaluation(e)}${e.comment ? `  (${e.comment})` : ""}`);
    for (const f of result.runEvaluationFailures) lines.push(`  ${f.evaluator} failed: ${f.message}`);
    sections.push(["Run evaluations", ...lines].join("\n"));
  }
  sections.push(`Experiment: ${result.experimentUrl ?? "(link unavailable: project id could not be read)"}`);
  return sections.join("\n\n");
}

function itemTable(items: FormattableResult["itemResults"]): string {
  const rows = items.map((r, index) => [
    String(index + 1),
    excerpt(r.input),
    r.error === undefined ? excerpt(r.output) : excerpt(`error: ${r.error}`),
    r.evaluations.length ? r.evaluations.map(formatEvaluation).join(", ") : "-",
  ]);
  return renderTable(["#", "Input", "Output", "Evaluations"], rows);
}

function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, col) => Math.max(title.length, ...rows.map((row) => (row[col] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, col) => (col === cells.length - 1 ? cell : cell.padEnd(widths[col] ?? 0)))
      .join(COLUMN_GAP)
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function averageLines(items: FormattableResult["itemResults"]): string[] {
  const byName = new Map<string, number[]>();
  for (const { evaluations } of items) {
    for (const e of evaluations) {
      const numeric = typeof e.value === "boolean" ? Number(e.value) : e.value;
      if (typeof numeric !== "number") continue;
      const values = byName.get(e.name) ?? [];
      values.push(numeric);
      byName.set(e.name, values);
    }
  }
  return [...byName].map(([name, values]) => {
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    return `  ${name}: ${formatNumber(mean)} (${values.length} value${values.length === 1 ? "" : "s"})`;
  });
}

function failureLines(items: FormattableResult["itemResults"]): string[] {
  const lines: string[] = [];
  items.forEach((r, index) => {
    if (r.error !== undefined) lines.push(`  item ${index + 1}: task failed: ${r.error}`);
    for (const f of r.evaluationFailures) lines.push(`  item ${index + 1}: ${f.evaluator} failed: ${f.message}`);
  });
  return lines;
}

function formatEvaluation(evaluation: Evaluation): string {
  const { value } = evaluation;
  return `${evaluation.name}=${typeof value === "number" ? formatNumber(value) : String(value)}`;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(3)));
}

/** A one-line excerpt of a value: strings as-is, other values as JSON, whitespace collapsed, cut with `…`. */
export function excerpt(value: unknown, width: number = EXCERPT_WIDTH): string {
  let text: string;
  if (value === undefined) text = "-";
  else if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
