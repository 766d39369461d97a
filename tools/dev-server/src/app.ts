import type { IncomingMessage, ServerResponse } from "node:http";
import { checkAuth, type DevKeys } from "./auth.ts";
import { HttpError, parseJsonBody, readBody, sendError, sendJson } from "./http.ts";
import { matchPath, type Route, type RouteContext, type RouteResult } from "./route.ts";
import { datasetRoutes } from "./routes/datasets.ts";
import { experimentRoutes } from "./routes/experiments.ts";
import { mediaRoutes } from "./routes/media.ts";
import { miscRoutes } from "./routes/misc.ts";
import { observationRoutes } from "./routes/observations.ts";
import { otelRoutes } from "./routes/otel.ts";
import { promptRoutes } from "./routes/prompts.ts";
import { scoreRoutes } from "./routes/scores.ts";
import type { DevStore } from "./store.ts";

/** Every route the server answers. */
export const ROUTES: Route[] = [
  ...otelRoutes,
  ...scoreRoutes,
  ...promptRoutes,
  ...datasetRoutes,
  ...observationRoutes,
  ...experimentRoutes,
  ...mediaRoutes,
  ...miscRoutes,
];

/** Checks a request against the API definition before its handler runs. */
export interface RequestValidator {
  /** Throws a 400 `HttpError` for a request that does not fit; returns per-item errors of an array body. */
  validate(
    route: Route,
    request: { params: Record<string, string>; query: URLSearchParams; body: unknown },
  ): {
    itemErrors?: Map<number, string>;
  };
}

export interface AppOptions {
  store: DevStore;
  keys: DevKeys;
  validator: RequestValidator | undefined;
  baseUrl: () => string;
  onRequest?: (line: string) => void;
}

/** Browsers on other origins (the browser score client) may call the server; preflights are answered here. */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers":
    "authorization, content-type, content-encoding, x-svc-sdk-name, x-svc-sdk-version, x-svc-sdk-variant, x-svc-sdk-integration, x-svc-public-key, x-svc-ingestion-version",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-max-age": "600",
};

function isKnownPath(path: string): boolean {
  return ROUTES.some((route) => matchPath(route.path, path) !== undefined);
}

function findRoute(method: string, path: string): { route: Route; params: Record<string, string> } {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  if (allowed.length) {
    throw new HttpError(405, `Method ${method} not allowed on ${path}; allowed: ${allowed.join(", ")}`, undefined, {
      allow: allowed.join(", "),
    });
  }
  throw new HttpError(404, `No route ${method} ${path}`);
}

function send(res: ServerResponse, result: RouteResult): void {
  if (result.raw) {
    res.writeHead(result.status ?? 200, {
      "content-type": result.raw.contentType,
      "content-length": String(result.raw.data.length),
      ...result.headers,
    });
    res.end(result.raw.data);
    return;
  }
  const status = result.status ?? 200;
  if (status === 204) {
    res.writeHead(204, result.headers);
    res.end();
    return;
  }
  sendJson(res, status, result.body ?? {}, result.headers);
}

/** Builds the request listener: routing, auth, body parsing, validation, then the route's handler. */
export function createApp(options: AppOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    res.setHeader("access-control-allow-origin", CORS_HEADERS["access-control-allow-origin"]);
    try {
      if (method === "OPTIONS" && isKnownPath(url.pathname)) {
        req.resume();
        res.writeHead(204, CORS_HEADERS);
        res.end();
        return;
      }
      const { route, params } = findRoute(method, url.pathname);
      checkAuth(req.headers, options.keys, route.auth);
      const rawBody = await readBody(req);
      const body = route.body === "json" ? parseJsonBody(rawBody) : undefined;
      const checked = options.validator?.validate(route, { params, query: url.searchParams, body }) ?? {};
      const ctx: RouteContext = {
        params,
        query: url.searchParams,
        headers: req.headers,
        body,
        rawBody,
        store: options.store,
        baseUrl: options.baseUrl(),
        itemErrors: checked.itemErrors,
      };
      send(res, await route.handle(ctx));
    } catch (error) {
      req.resume(); // discard an unread body so the connection can be reused
      if (error instanceof HttpError) sendError(res, error);
      else sendError(res, new HttpError(500, `Internal error: ${(error as Error)?.message ?? String(error)}`));
    } finally {
      options.onRequest?.(`${method} ${url.pathname}${url.search} -> ${res.statusCode} (${Date.now() - started} ms)`);
    }
  };
}
