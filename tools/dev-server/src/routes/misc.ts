import { HttpError } from "../http.ts";
import type { Route } from "../route.ts";

/** The server version the health route reports: the oldest server the v6 SDK supports. */
export const DEV_SERVER_VERSION = "4.59.0";

/** At most this many trace ids per `DELETE /api/public/traces`. */
export const MAX_TRACE_IDS_PER_DELETE = 1000;

export const miscRoutes: Route[] = [
  {
    method: "GET",
    path: "/api/public/health",
    auth: "none",
    body: "none",
    handle: () => ({ body: { status: "OK", version: DEV_SERVER_VERSION } }),
  },
  {
    method: "GET",
    path: "/api/public/projects",
    auth: "basic",
    body: "none",
    handle: (ctx) => ({ body: { data: [ctx.store.project] } }),
  },
  {
    method: "DELETE",
    path: "/api/public/traces/{traceId}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      ctx.store.deleteTraces([ctx.params.traceId!]);
      return { body: { message: "Trace deleted successfully" } };
    },
  },
  {
    method: "DELETE",
    path: "/api/public/traces",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const traceIds = (ctx.body as { traceIds?: unknown } | undefined)?.traceIds;
      if (!Array.isArray(traceIds) || traceIds.some((id) => typeof id !== "string")) {
        throw new HttpError(400, "Body must be { traceIds: string[] }");
      }
      if (traceIds.length > MAX_TRACE_IDS_PER_DELETE) {
        throw new HttpError(400, `At most ${MAX_TRACE_IDS_PER_DELETE} trace ids per request, got ${traceIds.length}`);
      }
      ctx.store.deleteTraces(traceIds as string[]);
      return { body: { message: "Traces deleted successfully" } };
    },
  },
];
