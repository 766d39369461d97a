import { cursorPages } from "../../api/request-runtime.js";
import { means } from "./assertions.js";
import type { GateApi, ListedScore } from "./types.js";

/** A baseline run as read from the server: its run scores and, per item id, the scores and outcome of its trials. */
export interface BaselineRun {
  experimentId: string;
  runName: string;
  runScores: Map<string, number>;
  items: Map<string, BaselineTrial[]>;
}

/** One trace of a baseline item: whether its task failed, and its numeric scores. */
export interface BaselineTrial {
  failed: boolean;
  scores: Map<string, number>;
}

/** What identifies the run being compared and the one to look for. */
export interface BaselineQuery {
  experimentId: string;
  experimentName: string;
  datasetId: string | undefined;
  baselineRunName: string | undefined;
}

/** Every run on the server is searched: the routes want a start, and a baseline may be old. */
const FROM_START = "1970-01-01T00:00:00.000Z";
const PAGE_SIZE = 100;

/** A listing's pages; at most 1000 of them, so that a server that never ends paging cannot loop forever. */
const pages = (what: string) => ({ caller: "compareWithBaseline", what, maxPages: 1000 });

/** Finds the baseline run (the named one, else the latest other of the same dataset) and reads its scores and items. */
export async function readBaseline(api: GateApi, query: BaselineQuery): Promise<BaselineRun | undefined> {
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

type ListedRun = { id: string; name: string; datasetId: string | null; scores?: ListedScore[] | null };

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
