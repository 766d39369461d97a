import {
  SvcOtelSpanAttributes as A,
  parseJsonText,
  attributeText as str,
} from "../../../../packages/core/src/attributes.ts";
import { HttpError } from "../http.ts";
import { allObservations, type Observation } from "../observations.ts";
import { cursorPage, fieldGroups, intParam, listParam, timeParam } from "../paging.ts";
import type { Route, RouteContext } from "../route.ts";
import type { DevStore, StoredScore } from "../store.ts";
import { scoreV3 } from "./scores.ts";

/** An experiment item: the root span of one item run, read from its `svc.experiment.*` attributes. */
interface ItemRecord {
  observation: Observation;
  experimentId: string;
  experimentName: string;
  experimentDescription: string | null;
  experimentItemId: string;
  datasetId: string | null;
  itemVersion: string | null;
  expectedOutput: string | null;
  experimentMetadata: Record<string, unknown> | null;
  itemMetadata: Record<string, unknown> | null;
}

function objectAttr(attributes: Record<string, unknown>, key: string): Record<string, unknown> | null {
  const parsed = parseJsonText(attributes[key]);
  const out: Record<string, unknown> =
    parsed && typeof parsed === "object" && !Array.isArray(parsed) ? { ...(parsed as object) } : {};
  for (const [k, v] of Object.entries(attributes)) if (k.startsWith(`${key}.`)) out[k.slice(key.length + 1)] = v;
  return Object.keys(out).length ? out : null;
}

function experimentItems(store: DevStore): ItemRecord[] {
  const observations = new Map(allObservations(store).map((o) => [`${o.traceId}:${o.id}`, o]));
  const items: ItemRecord[] = [];
  for (const [key, span] of store.spans) {
    const a = span.attributes;
    const experimentId = str(a[A.EXPERIMENT_ID]);
    const experimentItemId = str(a[A.EXPERIMENT_ITEM_ID]);
    if (!experimentId || !experimentItemId) continue;
    // Descendants carry the experiment attributes too; only the item's root span is the item.
    const rootId = str(a[A.EXPERIMENT_ITEM_ROOT_OBSERVATION_ID]);
    if (rootId ? rootId !== span.spanId : span.parentSpanId !== undefined) continue;
    const version = str(a[A.EXPERIMENT_ITEM_VERSION]);
    items.push({
      observation: observations.get(key)!,
      experimentId,
      experimentName: str(a[A.EXPERIMENT_NAME]) ?? experimentId,
      experimentDescription: str(a[A.EXPERIMENT_DESCRIPTION]) ?? null,
      experimentItemId,
      datasetId: str(a[A.EXPERIMENT_DATASET_ID]) ?? null,
      itemVersion: version && !Number.isNaN(Date.parse(version)) ? new Date(version).toISOString() : null,
      expectedOutput: str(a[A.EXPERIMENT_ITEM_EXPECTED_OUTPUT]) ?? null,
      experimentMetadata: objectAttr(a, A.EXPERIMENT_METADATA),
      itemMetadata: objectAttr(a, A.EXPERIMENT_ITEM_METADATA),
    });
  }
  return items;
}

function scoresWhere(ctx: RouteContext, test: (s: StoredScore) => boolean): Record<string, unknown>[] {
  const limit = intParam(ctx.query, "scoreLimit", 50, 50);
  return [...ctx.store.scores.values()]
    .filter(test)
    .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
    .slice(0, limit)
    .map((s) => scoreV3(s, ctx.store.project.id, ["details", "subject"]));
}

function requireFrom(query: URLSearchParams): number {
  const from = timeParam(query, "fromStartTime");
  if (from === undefined) throw new HttpError(400, "Query parameter fromStartTime is required");
  return from;
}

function itemBody(ctx: RouteContext, item: ItemRecord, groups: string[]) {
  const o = item.observation;
  const out: Record<string, unknown> = {
    id: o.id,
    traceId: o.traceId,
    startTime: o.startTime,
    endTime: o.endTime,
    level: o.level,
    environment: o.environment,
    experimentId: item.experimentId,
    experimentName: item.experimentName,
    experimentItemId: item.experimentItemId,
    experimentDescription: item.experimentDescription,
  };
  if (groups.includes("dataset")) {
    Object.assign(out, { experimentDatasetId: item.datasetId, experimentItemVersion: item.itemVersion });
  }
  if (groups.includes("io"))
    Object.assign(out, { input: o.input, output: o.output, expectedOutput: item.expectedOutput });
  if (groups.includes("metadata")) out.metadata = o.metadata;
  if (groups.includes("itemMetadata")) out.experimentItemMetadata = item.itemMetadata;
  if (groups.includes("experimentMetadata")) out.experimentMetadata = item.experimentMetadata;
  if (groups.includes("scores")) out.scores = scoresWhere(ctx, (s) => s.traceId === o.traceId);
  return out;
}

const ITEM_GROUPS = ["core", "dataset", "io", "metadata", "itemMetadata", "experimentMetadata", "scores"];
const EXPERIMENT_GROUPS = ["core", "metadata", "scores"];

export const experimentRoutes: Route[] = [
  {
    method: "GET",
    path: "/api/public/experiment-items",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const q = ctx.query;
      const from = requireFrom(q);
      const to = timeParam(q, "toStartTime");
      const limit = intParam(q, "limit", 50, 100);
      const groups = fieldGroups(q, ITEM_GROUPS, ["core", "dataset"]);
      const within = (name: string, value: string | null) => {
        const wanted = listParam(q, name);
        return !wanted || (value !== null && wanted.includes(value));
      };
      const matching = experimentItems(ctx.store).filter((item) => {
        const start = Date.parse(item.observation.startTime);
        return (
          start >= from &&
          (to === undefined || start < to) &&
          within("experimentId", item.experimentId) &&
          within("experimentName", item.experimentName) &&
          within("experimentItemId", item.experimentItemId) &&
          within("datasetId", item.datasetId)
        );
      });
      const page = cursorPage(
        matching,
        (i) => [i.observation.startTime, i.observation.id],
        q.get("cursor") ?? undefined,
        limit,
      );
      return {
        body: {
          data: page.data.map((item) => itemBody(ctx, item, groups)),
          meta: page.cursor ? { cursor: page.cursor } : {},
        },
      };
    },
  },
  {
    method: "GET",
    path: "/api/public/experiments",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const q = ctx.query;
      const from = requireFrom(q);
      const to = timeParam(q, "toStartTime");
      const limit = intParam(q, "limit", 50, 100);
      const groups = fieldGroups(q, EXPERIMENT_GROUPS, ["core"]);
      const byId = new Map<string, ItemRecord[]>();
      for (const item of experimentItems(ctx.store)) {
        byId.set(item.experimentId, [...(byId.get(item.experimentId) ?? []), item]);
      }
      const experiments = [...byId.entries()].map(([id, items]) => {
        const starts = items.map((i) => i.observation.startTime).sort();
        const ends = items.map((i) => i.observation.endTime ?? i.observation.startTime).sort();
        const first = items[0]!;
        return {
          id,
          name: first.experimentName,
          description: items.find((i) => i.experimentDescription)?.experimentDescription ?? null,
          startTime: starts[0]!,
          endTime: ends.at(-1)!,
          itemCount: new Set(items.map((i) => i.experimentItemId)).size,
          datasetId: items.find((i) => i.datasetId)?.datasetId ?? null,
          metadata: items.find((i) => i.experimentMetadata)?.experimentMetadata ?? null,
        };
      });
      const within = (name: string, value: string | null) => {
        const wanted = listParam(q, name);
        return !wanted || (value !== null && wanted.includes(value));
      };
      const matching = experiments.filter((e) => {
        const start = Date.parse(e.startTime);
        return (
          start >= from &&
          (to === undefined || start < to) &&
          within("id", e.id) &&
          within("name", e.name) &&
          within("datasetId", e.datasetId)
        );
      });
      const page = cursorPage(matching, (e) => [e.endTime, e.id], q.get("cursor") ?? undefined, limit);
      return {
        body: {
          data: page.data.map(({ metadata, ...core }) => ({
            ...core,
            ...(groups.includes("metadata") ? { metadata } : {}),
            ...(groups.includes("scores") ? { scores: scoresWhere(ctx, (s) => s.datasetRunId === core.id) } : {}),
          })),
          meta: page.cursor ? { cursor: page.cursor } : {},
        },
      };
    },
  },
];
