import { describeError, getGlobalLogger, nodeBuiltin } from "@svc/core";
import { cursorPages } from "../../api/request-runtime.js";
import { excerpt } from "../format.js";
import { itemIdOf } from "../internal/run-item.js";
import { mean, numericValue } from "../internal/values.js";
import type { ExperimentResult } from "../types.js";
import {
  type Assertion,
  failedItemAssertions,
  holds,
  means,
  parseAssertions,
  round,
  trialEvaluations,
} from "./assertions.js";
import type { GateApi, GateFlip, GateOptions, GateResult, GateScore } from "./types.js";

/** What a comparison needs of a finished run. */
type GateRun = Pick<
  ExperimentResult<unknown, unknown, unknown, unknown>,
  "experimentId" | "runName" | "itemResults" | "runEvaluations"
> & { experimentName: string };

/**
 * Compares the run with the baseline read from the server and writes the Markdown and JSON where asked (a file that
 * cannot be written is logged, not thrown).
 * @throws {TypeError} for an assertion that cannot be read; the REST client's typed errors for the baseline's reads.
 */
export async function compareWithBaseline(api: GateApi, run: GateRun, options: GateOptions = {}): Promise<GateResult> {
  const assertions = parseAssertions(options.assertions);
  const current = { ...run, itemIds: await Promise.all(run.itemResults.map((r) => itemIdOf(r.item))) };
  const datasetId = run.itemResults.find((r) => typeof r.item.datasetId === "string")?.item.datasetId;
  const baseline = await readBaseline(api, { ...run, datasetId, baselineRunName: options.baseline });
  if (!baseline) {
    const which = options.baseline === undefined ? "no earlier run" : `no run named "${options.baseline}"`;
    getGlobalLogger().info(`ExperimentManager: regression gate of run "${run.runName}": ${which}; nothing compared`);
  }
  const scores = baseline ? compareScores(current, baseline, options.maxDrop) : [];
  const flips = baseline ? itemFlips(current, baseline, assertions) : [];
  const regressed = flips.some((f) => f.direction === "regressed");
  const result: Omit<GateResult, "markdown"> = {
    passed: scores.every((s) => s.passed) && !(options.failOnFlips && regressed),
    runName: run.runName,
    baseline: baseline && { experimentId: baseline.experimentId, runName: baseline.runName },
    scores,
    flips,
  };
  const gate = { ...result, markdown: gateMarkdown(result) };
  await writeReports(gate, options);
  return gate;
}

async function writeReports(gate: GateResult, options: GateOptions): Promise<void> {
  if (options.summaryPath === undefined && options.jsonPath === undefined) return;
  const fs = nodeBuiltin<typeof import("node:fs/promises")>("node:fs/promises");
  if (!fs) {
    getGlobalLogger().warn(
      "ExperimentManager: the regression gate's files were not written: this runtime has no file system module (node:fs); use gate.markdown instead",
    );
    return;
  }
  const write = async (path: string | undefined, what: string, act: (p: string) => Promise<void>) => {
    if (!path) return;
    try {
      await act(path);
    } catch (error) {
      getGlobalLogger().warn(
        `ExperimentManager: the regression gate's ${what} could not be written to ${path}: ${describeError(error)}; check that its folder exists and can be written`,
      );
    }
  };
  // `baseline: null` rather than no key, so that readers of the file see that no baseline was found.
  const { markdown, ...rest } = gate;
  const json = { ...rest, baseline: rest.baseline ?? null };
  await write(options.summaryPath, "Markdown table", (p) => fs.appendFile(p, `${markdown}\n`));
  await write(options.jsonPath, "JSON result", (p) => fs.writeFile(p, `${JSON.stringify(json, null, 2)}\n`));
}

/** The run being compared, with the id of each item as its traces record it. */
type CurrentRun = GateRun & { itemIds: string[] };

function compareScores(current: CurrentRun, baseline: BaselineRun, maxDrop: GateOptions["maxDrop"]): GateScore[] {
  const currentMeans = means(trialEvaluations(current.itemResults));
  const baselineTrials = [...baseline.items.values()].flat();
  const baselineMeans = means(baselineTrials.flatMap((t) => [...t.scores].map(([name, value]) => ({ name, value }))));
  const runNow = (name: string) => numericValue(current.runEvaluations.find((e) => e.name === name)?.value);
  const runNames = current.runEvaluations.filter((e) => numericValue(e.value) !== undefined).map((e) => e.name);
  const score = (name: string, kind: GateScore["kind"], now: number | undefined, before: number | undefined) => {
    const drop = typeof maxDrop === "number" ? maxDrop : (maxDrop?.[name] ?? maxDrop?.["*"] ?? 0);
    const change = now !== undefined && before !== undefined ? now - before : undefined;
    const passed = before === undefined || (change !== undefined && change >= -drop - 1e-9);
    return { name, kind, baseline: before, current: now, change, maxDrop: drop, passed };
  };
  const names = (a: Iterable<string>, b: Iterable<string>) =>
    [...new Set([...a, ...b])].sort((x, y) => x.localeCompare(y));
  return [
    ...names(currentMeans.keys(), baselineMeans.keys()).map((n) =>
      score(n, "item mean", currentMeans.get(n), baselineMeans.get(n)),
    ),
    ...names(runNames, baseline.runScores.keys()).map((n) => score(n, "run", runNow(n), baseline.runScores.get(n))),
  ];
}

function itemFlips(current: CurrentRun, baseline: BaselineRun, assertions: readonly Assertion[]): GateFlip[] {
  const flips: GateFlip[] = [];
  current.itemResults.forEach((result, index) => {
    const itemId = current.itemIds[index];
    const before = itemId === undefined ? undefined : baseline.items.get(itemId);
    if (itemId === undefined || !before?.length) return;
    const passedBefore = baselinePasses(before, assertions);
    const passesNow = result.status === "ok" && failedItemAssertions(result, assertions).length === 0;
    if (passedBefore && !passesNow) flips.push({ itemId, input: result.input, direction: "regressed" });
    if (!passedBefore && passesNow) flips.push({ itemId, input: result.input, direction: "fixed" });
  });
  return [...flips.filter((f) => f.direction === "regressed"), ...flips.filter((f) => f.direction === "fixed")];
}

function baselinePasses(trials: BaselineTrial[], assertions: readonly Assertion[]): boolean {
  if (trials.some((t) => t.failed)) return false;
  return assertions
    .filter((a) => a.scope === "item")
    .every((a) => {
      const values = trials.flatMap((t) => t.scores.get(a.name) ?? []);
      return holds(a, values.length > 0 ? mean(values) : undefined);
    });
}

const FLIPS_LISTED = 20;

/** The comparison as Markdown: the verdict, a table of scores and one of the items that flipped (20, then a count). */
function gateMarkdown(gate: Omit<GateResult, "markdown">): string {
  const verdict = gate.passed ? "passed" : "failed";
  const lines = [`### Regression gate ${verdict}: \`${cell(gate.runName)}\``, ""];
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

/** A baseline run as read from the server: its run scores and, per item id, the scores and outcome of its trials. */
interface BaselineRun {
  experimentId: string;
  runName: string;
  runScores: Map<string, number>;
  items: Map<string, BaselineTrial[]>;
}

/** One trace of a baseline item: whether its task failed, and its numeric scores. */
interface BaselineTrial {
  failed: boolean;
  scores: Map<string, number>;
}

/** What identifies the run being compared and the one to look for. */
type BaselineQuery = Pick<GateRun, "experimentId" | "experimentName"> & {
  datasetId: string | undefined;
  baselineRunName: string | undefined;
};

/** Every run on the server is searched: the routes want a start, and a baseline may be old. */
const FROM_START = "1970-01-01T00:00:00.000Z";
const PAGE_SIZE = 100;

/** A listing's pages; at most 1000 of them, so that a server that never ends paging cannot loop forever. */
const pages = (what: string) => ({ caller: "compareWithBaseline", what, maxPages: 1000 });

/** Finds the baseline run (the named one, else the latest other of the same dataset) and reads its scores and items. */
async function readBaseline(api: GateApi, query: BaselineQuery): Promise<BaselineRun | undefined> {
  const run = await findRun(api, query);
  if (!run) return undefined;
  const items = new Map<string, BaselineTrial[]>();
  const request = { fromStartTime: FROM_START, experimentId: run.id, fields: "core,scores", limit: PAGE_SIZE };
  const listing = cursorPages(pages("experiment items"), (cursor) =>
    api.experiments.listItems({ ...request, ...cursor }),
  );
  for await (const data of listing)
    for (const item of data) {
      const trials = items.get(item.experimentItemId) ?? [];
      trials.push({ failed: item.level === "ERROR", scores: means(item.scores ?? []) });
      items.set(item.experimentItemId, trials);
    }
  return { experimentId: run.id, runName: run.name, runScores: means(run.scores ?? []), items };
}

type ListedRun = Awaited<ReturnType<GateApi["experiments"]["list"]>>["data"][number];

async function findRun(api: GateApi, query: BaselineQuery): Promise<ListedRun | undefined> {
  const matches = (run: ListedRun): boolean => {
    if (run.id === query.experimentId) return false;
    if (query.baselineRunName !== undefined) return run.name === query.baselineRunName;
    if (query.datasetId !== undefined) return run.datasetId === query.datasetId;
    return run.datasetId === null && run.name.startsWith(query.experimentName);
  };
  const request = {
    fromStartTime: FROM_START,
    fields: "core,scores",
    limit: PAGE_SIZE,
    ...(query.datasetId !== undefined ? { datasetId: query.datasetId } : {}),
    ...(query.baselineRunName !== undefined ? { name: query.baselineRunName } : {}),
  };
  // Newest first: the first match is the latest.
  const listing = cursorPages(pages("experiments"), (cursor) => api.experiments.list({ ...request, ...cursor }));
  for await (const data of listing) {
    const found = data.find(matches);
    if (found) return found;
  }
  return undefined;
}
