import type { DeleteExperimentDataParams, DeleteExperimentDataResult } from "./types.js";

/** Trace ids per `api.trace.deleteMultiple` call. */
export const DELETE_TRACES_CHUNK_SIZE = 1000;
/** Upper bound on experiment-item pages read for one deletion, so a server that never ends paging cannot loop forever. */
export const MAX_EXPERIMENT_ITEM_PAGES = 100_000;

/** The REST calls the deletion procedure makes; `svc.api` has them. */
export interface ExperimentDataApi {
  datasets: { get(datasetName: string): PromiseLike<{ id: string; createdAt: string | Date }> };
  experiments: {
    listItems(request: {
      datasetId: string;
      experimentName: string;
      fromStartTime: string;
      cursor?: string;
    }): PromiseLike<{ data: { traceId: string }[]; meta?: { cursor?: string | null } }>;
  };
  trace: { deleteMultiple(request: { traceIds: string[] }): PromiseLike<unknown> };
}

/**
 * Deletes every trace of an experiment (with their observations and scores): reads the dataset for its
 * creation time, pages the experiment items from then on, and deletes their traces 1000 ids per call.
 * REST errors are thrown as they come; traces deleted by earlier calls stay deleted.
 */
export async function deleteExperimentData(
  api: ExperimentDataApi,
  params: DeleteExperimentDataParams,
): Promise<DeleteExperimentDataResult> {
  const dataset = await api.datasets.get(params.datasetName);
  const fromStartTime = toIsoString(dataset.createdAt);
  const traceIds = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_EXPERIMENT_ITEM_PAGES) {
      throw new Error(
        `deleteData: stopped after ${page} pages of experiment items; the server kept returning a cursor`,
      );
    }
    const response = await api.experiments.listItems({
      datasetId: dataset.id,
      experimentName: params.experimentName,
      fromStartTime,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const item of response.data) if (item.traceId) traceIds.add(item.traceId);
    const next = response.meta?.cursor ?? undefined;
    if (next === undefined || next === "") break;
    if (next === cursor) throw new Error(`deleteData: the server returned the same cursor twice ("${next}")`);
    cursor = next;
  }
  const ids = [...traceIds];
  for (let start = 0; start < ids.length; start += DELETE_TRACES_CHUNK_SIZE) {
    await api.trace.deleteMultiple({ traceIds: ids.slice(start, start + DELETE_TRACES_CHUNK_SIZE) });
  }
  return { deletedTraceIds: ids };
}

function toIsoString(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}
