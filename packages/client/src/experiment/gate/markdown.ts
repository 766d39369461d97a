import { excerpt } from "../format.js";
import { round } from "./assertions.js";
import type { GateResult } from "./types.js";

const FLIPS_LISTED = 20;

/**
 * The comparison as Markdown: a heading with the verdict, the runs compared, a table of scores (baseline, current,
 * change, allowed drop, result) and a table of the items that flipped (the first 20, then a count).
 */
export function gateMarkdown(gate: Omit<GateResult, "markdown">, current: { runName: string }): string {
  const verdict = gate.passed ? "passed" : "failed";
  const lines = [`### Regression gate ${verdict}: \`${cell(current.runName)}\``, ""];
  if (!gate.baseline) {
    lines.push("No baseline run was found, so nothing was compared.");
    return `${lines.join("\n")}\n`;
  }
  lines.push(`Compared with the baseline run \`${cell(gate.baseline.runName)}\`.`, "");
  lines.push("| Score | Baseline | Current | Change | Allowed drop | Result |", "|---|---:|---:|---:|---:|---|");
  for (const s of gate.scores) {
    const change = s.change === undefined ? "-" : `${s.change > 0 ? "+" : ""}${round(s.change)}`;
    lines.push(
      `| ${cell(s.name)} (${s.kind}) | ${num(s.baseline)} | ${num(s.current)} | ${change} | ${s.maxDrop} | ${s.passed ? "pass" : "**FAIL**"} |`,
    );
  }
  if (gate.scores.length === 0) lines.push("| (no scores) | - | - | - | - | pass |");
  const regressed = gate.flips.filter((f) => f.direction === "regressed").length;
  const fixed = gate.flips.length - regressed;
  lines.push("", `Items that flipped: ${regressed} from pass to fail, ${fixed} from fail to pass.`);
  if (gate.flips.length) {
    lines.push("", "| Item | Input | Baseline | Current |", "|---|---|---|---|");
    for (const flip of gate.flips.slice(0, FLIPS_LISTED)) {
      const [before, now] = flip.direction === "regressed" ? ["pass", "**fail**"] : ["fail", "pass"];
      lines.push(`| \`${cell(flip.itemId)}\` | ${cell(excerpt(flip.input))} | ${before} | ${now} |`);
    }
    if (gate.flips.length > FLIPS_LISTED) lines.push("", `and ${gate.flips.length - FLIPS_LISTED} more.`);
  }
  return `${lines.join("\n")}\n`;
}

function num(value: number | undefined): string {
  return value === undefined ? "-" : String(round(value));
}

/** Text safe inside a table cell and inline code: no pipes, backticks or line breaks. */
function cell(text: string): string {
  return text.replace(/[|`]/g, "'").replace(/\s+/g, " ");
}
