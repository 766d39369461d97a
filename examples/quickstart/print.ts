// Printing helpers of the quickstart: the trace as a tree, scores and the experiment summary.
import type { SvcAPI } from "@svc/client";

const ms = (o: SvcAPI.ObservationV2) =>
  o.endTime ? `${Math.max(0, Date.parse(o.endTime) - Date.parse(o.startTime))} ms` : "running";

function describe(o: SvcAPI.ObservationV2): string {
  const parts = [`${o.type} ${o.name ?? "(unnamed)"}`, `(${ms(o)})`];
  if (o.providedModelName) parts.push(`model=${o.providedModelName}`);
  const usage = o.usageDetails as Record<string, number> | null | undefined;
  if (usage && Object.keys(usage).length) parts.push(`tokens in/out ${usage.input ?? "?"}/${usage.output ?? "?"}`);
  if (o.promptName) parts.push(`prompt=${o.promptName} v${o.promptVersion}`);
  return parts.join("  ");
}

/** Prints the observations of one trace as a tree, parents before children, siblings by start time. */
export function printTree(observations: SvcAPI.ObservationV2[]): void {
  const ids = new Set(observations.map((o) => o.id));
  const children = new Map<string | null, SvcAPI.ObservationV2[]>();
  for (const o of observations) {
    const parent = o.parentObservationId && ids.has(o.parentObservationId) ? o.parentObservationId : null;
    children.set(parent, [...(children.get(parent) ?? []), o]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startTime.localeCompare(b.startTime));
  const walk = (parent: string | null, indent: string) => {
    const list = children.get(parent) ?? [];
    list.forEach((o, i) => {
      const last = i === list.length - 1;
      console.log(`${indent}${last ? "└─" : "├─"} ${describe(o)}`);
      walk(o.id, `${indent}${last ? "   " : "│  "}`);
    });
  };
  walk(null, "  ");
}

/** Shortens JSON text or any value for one line of output; numbers get at most two decimals. */
export function short(value: unknown, max = 60): string {
  const text =
    typeof value === "string"
      ? value
      : typeof value === "number"
        ? String(Number(value.toFixed(2)))
        : JSON.stringify(value);
  return text === undefined ? "-" : text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
