import { counted } from "@svc/core";
import { round, trialEvaluations } from "./gate/assertions.js";
import { mean, toText, valuesByName } from "./internal/values.js";
import type { AnyItemResult, Evaluation, ExperimentItemStatus, ExperimentResult, FormatOptions } from "./types.js";

/** What {@link formatExperimentResult} renders: an experiment result without its methods. */
export type FormattableResult = Omit<
  ExperimentResult<unknown, unknown, unknown, unknown>,
  "format" | "compareWithBaseline"
>;

type Items = AnyItemResult[];

const EXCERPT_WIDTH = 40;
const COLUMN_GAP = "  ";
/** Items listed by name in the failures section; the others are counted. */
const FAILURES_LISTED = 10;
const STATUSES: ExperimentItemStatus[] = ["ok", "failed", "timeout", "skipped"];

/**
 * Renders a run as plain text: the counts of each status, a table of items, the average of each numeric evaluation,
 * the failures of tasks and evaluators, run evaluations and the experiment link.
 */
export function formatExperimentResult(result: FormattableResult, options: FormatOptions = {}): string {
  const items = result.itemResults;
  const sections = [`Experiment run "${result.runName}" (${statusCounts(items)})`];

  if (options.includeItemResults ?? true) sections.push(itemTable(items));
  const averages = averageLines(items);
  if (averages.length) sections.push(["Item evaluation averages", ...averages].join("\n"));
  const failures = failureLines(items);
  if (failures.length) sections.push(["Failures", ...failures].join("\n"));
  const evaluatorFailures = evaluatorFailureSummaries(items).map((line) => `  ${line}`);
  if (evaluatorFailures.length) sections.push(["Evaluator failures", ...evaluatorFailures].join("\n"));
  if (result.runEvaluations.length || result.runEvaluationFailures.length) {
    const lines = result.runEvaluations.map((e) => `  ${formatEvaluation(e)}${e.comment ? `  (${e.comment})` : ""}`);
    for (const f of result.runEvaluationFailures) lines.push(`  ${f.evaluator} failed: ${f.message}`);
    sections.push(["Run evaluations", ...lines].join("\n"));
  }
  sections.push(`Experiment: ${result.experimentUrl ?? "(link unavailable: project id could not be read)"}`);
  return sections.join("\n\n");
}

/** `3 items: 2 ok, 1 failed; 1 retried`: each status that occurs (`ok` always), then the items retried, if any. */
export function statusCounts(items: Items): string {
  const counts = new Map<ExperimentItemStatus, number>([["ok", 0]]);
  for (const { status } of items) counts.set(status, (counts.get(status) ?? 0) + 1);
  const parts = STATUSES.filter((status) => counts.has(status)).map(
    (status) => `${counts.get(status)} ${status === "timeout" ? "timed out" : status}`,
  );
  const retried = items.filter((r) => r.attempts > 1).length;
  return `${counted(items.length, "items")}: ${parts.join(", ")}${retried ? `; ${retried} retried` : ""}`;
}

/** One summary per evaluator that failed: on how many items, and the first failure with its item number. */
export function evaluatorFailureSummaries(items: Items): string[] {
  const byEvaluator = new Map<string, { count: number; first: string }>();
  items.forEach((r, index) => {
    for (const f of r.evaluationFailures) {
      const seen = byEvaluator.get(f.evaluator);
      if (seen) seen.count++;
      else byEvaluator.set(f.evaluator, { count: 1, first: `${itemLabel(r, index)}: ${f.message}` });
    }
  });
  const evaluated = items.filter((r) => r.status === "ok").length;
  return [...byEvaluator].map(
    ([evaluator, { count, first }]) =>
      `${evaluator} failed on ${count} of ${counted(evaluated, "items")}; first, ${first}`,
  );
}

function itemTable(items: Items): string {
  const rows = items.map((r, index) => [
    String(index + 1),
    r.status,
    excerpt(r.input),
    r.status === "ok" ? excerpt(r.output) : r.error === undefined ? "-" : excerpt(`error: ${r.error}`),
    r.evaluations.length ? r.evaluations.map(formatEvaluation).join(", ") : "-",
  ]);
  return renderTable(["#", "Status", "Input", "Output", "Evaluations"], rows);
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

function averageLines(items: Items): string[] {
  return [...valuesByName(trialEvaluations(items))].map(
    ([name, values]) => `  ${name}: ${round(mean(values))} (${counted(values.length, "values")})`,
  );
}

/** Items that failed or timed out, the first ten by name, then a count. Skipped items are in the counts only. */
function failureLines(items: Items): string[] {
  const lines: string[] = [];
  items.forEach((r, index) => {
    if (r.status !== "failed" && r.status !== "timeout") return;
    const attempts = r.attempts > 1 ? ` (${r.attempts} attempts)` : "";
    lines.push(`  ${itemLabel(r, index)}: ${r.status === "timeout" ? "" : "task failed: "}${r.error}${attempts}`);
  });
  if (lines.length <= FAILURES_LISTED) return lines;
  return [...lines.slice(0, FAILURES_LISTED), `  and ${lines.length - FAILURES_LISTED} more`];
}

function formatEvaluation(evaluation: Evaluation): string {
  const { value } = evaluation;
  return `${evaluation.name}=${typeof value === "number" ? round(value) : String(value)}`;
}

const INPUT_PREVIEW_WIDTH = 30;

/**
 * How a failure names its item: by its id and a short preview of its input (`item "ds-7" (input "country-14")`),
 * or, for an item without an id (local data), by its position in the data (`item 3 (input "Japan")`).
 */
export function itemLabel(result: AnyItemResult, index: number): string {
  const id = result.item?.id;
  const name = typeof id === "string" && id !== "" ? `item ${JSON.stringify(id)}` : `item ${index + 1}`;
  const preview = excerpt(result.input, INPUT_PREVIEW_WIDTH);
  return `${name} (input ${typeof result.input === "string" ? JSON.stringify(preview) : preview})`;
}

/** A one-line excerpt of a value: strings as-is, other values as JSON, whitespace collapsed, cut with `…`. */
export function excerpt(value: unknown, width: number = EXCERPT_WIDTH): string {
  const text = (value === undefined ? "-" : toText(value)).replace(/\s+/g, " ").trim();
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
