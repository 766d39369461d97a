import { parseObservationFilter } from "../filter.ts";
import { HttpError } from "../http.ts";
import { allObservations, OBSERVATION_FIELD_GROUPS, type Observation, pickFields } from "../observations.ts";
import { cursorPage, fieldGroups, intParam, listParam, timeParam } from "../paging.ts";
import type { Route } from "../route.ts";

function singleFilters(query: URLSearchParams): (o: Observation) => boolean {
  const eq = (name: string, actual: (o: Observation) => unknown) => {
    const wanted = query.get(name);
    return (o: Observation) => wanted === null || String(actual(o)) === wanted;
  };
  const environments = listParam(query, "environment");
  const from = timeParam(query, "fromStartTime");
  const to = timeParam(query, "toStartTime");
  const parent = query.get("parentObservationId");
  const isRoot = query.get("isRootObservation");
  const tests = [
    eq("name", (o) => o.name),
    eq("userId", (o) => o.userId),
    eq("level", (o) => o.level),
    eq("version", (o) => o.version),
    (o: Observation) => !query.get("type") || o.type === query.get("type")!.toUpperCase(),
    (o: Observation) => !environments || environments.includes(o.environment),
    (o: Observation) => from === undefined || Date.parse(o.startTime) >= from,
    (o: Observation) => to === undefined || Date.parse(o.startTime) < to,
    (o: Observation) =>
      parent === null || (parent === "" ? o.parentObservationId === null : o.parentObservationId === parent),
    (o: Observation) => isRoot === null || String(o.isRootObservation) === isRoot,
  ];
  return (o) => tests.every((t) => t(o));
}

export const observationRoutes: Route[] = [
  {
    method: "GET",
    path: "/api/public/v2/observations",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const q = ctx.query;
      if (q.get("parseIoAsJson") === "true") {
        throw new HttpError(
          400,
          "parseIoAsJson=true is no longer supported; input and output are returned as raw strings",
        );
      }
      const limit = intParam(q, "limit", 50, 1000);
      const groups = fieldGroups(q, Object.keys(OBSERVATION_FIELD_GROUPS), ["core", "basic"]);
      if (!groups.includes("core")) groups.unshift("core");
      const filter = q.get("filter") ? parseObservationFilter(q.get("filter")!) : singleFilters(q);
      const traceId = q.get("traceId");
      const sessionId = q.get("sessionId");
      const matching = allObservations(ctx.store)
        .filter((o) => !traceId || o.traceId === traceId)
        .filter((o) => !sessionId || o.sessionId === sessionId)
        .filter(filter);
      const page = cursorPage(matching, (o) => [o.startTime, o.id], q.get("cursor") ?? undefined, limit);
      const expand = new Set(listParam(q, "expandMetadata") ?? []);
      return {
        body: {
          data: page.data.map((o) => pickFields(o, groups, expand)),
          meta: page.cursor ? { cursor: page.cursor } : {},
        },
      };
    },
  },
];
