import type { IncomingHttpHeaders } from "node:http";
import type { AuthMode } from "./auth.ts";
import type { DevStore } from "./store.ts";

/** What a route handler gets. `body` is the parsed JSON body for JSON routes, else undefined. */
export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  rawBody: Buffer;
  /** For a JSON array body: the items that do not fit the API definition, by index, with the reason. */
  itemErrors?: Map<number, string>;
  store: DevStore;
  /** The server's own address, for URLs it hands out (media). */
  baseUrl: string;
}

/** What a route answers: JSON by default, or raw bytes. */
export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: { contentType: string; data: Buffer };
}

/** One route of the server. `path` uses `{name}` for a path segment. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  auth: AuthMode;
  /** `json` parses the body as JSON and checks it against the API definition; `raw` leaves the bytes alone. */
  body: "json" | "raw" | "none";
  /** The body is an array whose items are checked one by one: bad items are rejected, good ones kept. */
  batch?: boolean;
  handle(ctx: RouteContext): RouteResult | Promise<RouteResult>;
}

/** Matches a request path against a route template; returns the decoded path parameters or undefined. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const want = template.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith("{") && w.endsWith("}")) {
      if (g === "") return undefined;
      try {
        params[w.slice(1, -1)] = decodeURIComponent(g);
      } catch {
        return undefined;
      }
    } else if (w !== g) return undefined;
  }
  return params;
}
