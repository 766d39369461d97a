import { randomUUID } from "node:crypto";
import { HttpError } from "../http.ts";
import { mediaReferencesOf } from "../media-references.ts";
import { intParam, numberedPage, timeParam } from "../paging.ts";
import type { Route, RouteContext } from "../route.ts";
import type { StoredDataset, StoredDatasetItem } from "../store.ts";

function toItem(item: StoredDatasetItem, ctx: RouteContext) {
  return { ...item, mediaReferences: mediaReferencesOf(item, ctx.store, ctx.baseUrl) };
}

const orNull = (v: unknown) => (v === undefined ? null : v);
const stringOrNull = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

export const datasetRoutes: Route[] = [
  {
    method: "POST",
    path: "/api/public/v2/datasets",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      if (typeof body.name !== "string" || body.name === "")
        throw new HttpError(400, "name must be a non-empty string");
      const now = new Date().toISOString();
      const existing = ctx.store.datasets.get(body.name);
      // Creating a dataset that exists updates it, as the server's upsert does.
      const dataset: StoredDataset = {
        id: existing?.id ?? randomUUID(),
        name: body.name,
        description: stringOrNull(body.description) ?? existing?.description ?? null,
        metadata: orNull(body.metadata ?? existing?.metadata),
        inputSchema: orNull(body.inputSchema ?? existing?.inputSchema),
        expectedOutputSchema: orNull(body.expectedOutputSchema ?? existing?.expectedOutputSchema),
        projectId: ctx.store.project.id,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      ctx.store.datasets.set(dataset.name, dataset);
      return { body: dataset };
    },
  },
  {
    method: "GET",
    path: "/api/public/v2/datasets/{datasetName}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const dataset = ctx.store.datasets.get(ctx.params.datasetName!);
      if (!dataset) throw new HttpError(404, `Dataset not found: '${ctx.params.datasetName}'`);
      return { body: dataset };
    },
  },
  {
    method: "GET",
    path: "/api/public/v2/datasets",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const page = intParam(ctx.query, "page", 1);
      const limit = intParam(ctx.query, "limit", 50, 1000);
      const all = [...ctx.store.datasets.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return { body: numberedPage(all, page, limit) };
    },
  },
  {
    method: "POST",
    path: "/api/public/dataset-items",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      const datasetName = body.datasetName;
      if (typeof datasetName !== "string") throw new HttpError(400, "datasetName must be a string");
      const dataset = ctx.store.datasets.get(datasetName);
      if (!dataset) throw new HttpError(404, `Dataset not found: '${datasetName}'; create it first`);
      const id = stringOrNull(body.id) ?? randomUUID();
      const existing = ctx.store.datasetItems.get(id);
      if (existing && existing.datasetId !== dataset.id) {
        throw new HttpError(409, `Dataset item ${id} belongs to dataset '${existing.datasetName}'`);
      }
      const now = new Date().toISOString();
      const item: StoredDatasetItem = {
        id,
        status: body.status === "ARCHIVED" ? "ARCHIVED" : "ACTIVE",
        input: orNull(body.input),
        expectedOutput: orNull(body.expectedOutput),
        metadata: orNull(body.metadata),
        sourceTraceId: stringOrNull(body.sourceTraceId),
        sourceObservationId: stringOrNull(body.sourceObservationId),
        datasetId: dataset.id,
        datasetName: dataset.name,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      ctx.store.datasetItems.set(id, item);
      return { body: toItem(item, ctx) };
    },
  },
  {
    method: "GET",
    path: "/api/public/dataset-items",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const q = ctx.query;
      const page = intParam(q, "page", 1);
      const limit = intParam(q, "limit", 50, 1000);
      const datasetName = q.get("datasetName");
      if (datasetName && !ctx.store.datasets.has(datasetName)) {
        throw new HttpError(404, `Dataset not found: '${datasetName}'`);
      }
      const version = timeParam(q, "version");
      const items = [...ctx.store.datasetItems.values()]
        .filter((i) => !datasetName || i.datasetName === datasetName)
        .filter((i) => !q.get("sourceTraceId") || i.sourceTraceId === q.get("sourceTraceId"))
        .filter((i) => !q.get("sourceObservationId") || i.sourceObservationId === q.get("sourceObservationId"))
        .filter((i) => version === undefined || Date.parse(i.createdAt) <= version)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
      const result = numberedPage(items, page, limit);
      return { body: { data: result.data.map((item) => toItem(item, ctx)), meta: result.meta } };
    },
  },
  {
    method: "GET",
    path: "/api/public/dataset-items/{id}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const item = ctx.store.datasetItems.get(ctx.params.id!);
      if (!item) throw new HttpError(404, `Dataset item not found: ${ctx.params.id}`);
      return { body: toItem(item, ctx) };
    },
  },
  {
    method: "DELETE",
    path: "/api/public/dataset-items/{id}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const item = ctx.store.datasetItems.get(ctx.params.id!);
      if (!item) throw new HttpError(404, `Dataset item not found: ${ctx.params.id}`);
      ctx.store.datasetItems.delete(item.id);
      return { body: { message: "Dataset item successfully deleted" } };
    },
  },
];
