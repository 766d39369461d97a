import { describeError, getGlobalLogger } from "@svc/core";
import { hashInput } from "../internal/run-item.js";
import type { Evaluation, ExperimentItemResult } from "../types.js";
import { parseAssertions } from "./assertions.js";
import { type GateApi, readBaseline } from "./baseline.js";
import { compareRuns } from "./compare.js";
import type { GateOptions, GateResult } from "./types.js";

/** What a comparison needs of a finished run. */
export interface GateRun {
  experimentId: string;
  experimentName: string;
  runName: string;
  itemResults: ExperimentItemResult<unknown, unknown, unknown, unknown>[];
  runEvaluations: Evaluation[];
}

/**
 * Reads the baseline run from the server, compares the run with it, and writes the Markdown table and the JSON result
 * where asked. A file that cannot be written is logged, not thrown: the comparison stands.
 * @throws {TypeError} for an assertion that cannot be read; the REST client's typed errors when the baseline cannot be
 * read.
 */
export async function compareWithBaseline(api: GateApi, run: GateRun, options: GateOptions = {}): Promise<GateResult> {
  const assertions = parseAssertions(options.assertions);
  const itemIds = await Promise.all(
    run.itemResults.map((r) => (typeof r.item.id === "string" ? r.item.id : hashInput(r.input))),
  );
  const datasetId = run.itemResults.find((r) => typeof r.item.datasetId === "string")?.item.datasetId;
  const baseline = await readBaseline(api, {
    experimentId: run.experimentId,
    experimentName: run.experimentName,
    datasetId,
    baselineRunName: options.baseline,
  });
  if (!baseline) {
    const which = options.baseline === undefined ? "no earlier run" : `no run named "${options.baseline}"`;
    getGlobalLogger().info(`ExperimentManager: regression gate of run "${run.runName}": ${which}; nothing compared`);
  }
  const gate = compareRuns({ ...run, itemIds }, baseline, options, assertions);
  await writeReports(gate, options);
  return gate;
}

async function writeReports(gate: GateResult, options: GateOptions): Promise<void> {
  if (options.summaryPath === undefined && options.jsonPath === undefined) return;
  // Taken from the runtime, not imported: bundles for runtimes without a file system must not need to resolve it.
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.("node:fs/promises") as typeof import("node:fs/promises") | undefined;
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
