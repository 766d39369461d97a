import {
  AccessDeniedError,
  BadRequestError,
  ConflictError,
  MethodNotAllowedError,
  NotFoundError,
  ServerError,
  SvcAPIError,
  SvcAPITimeoutError,
  SvcClient,
  TooManyRequestsError,
  UnauthorizedError,
} from "@svc/client";
import { sleep } from "@svc/core";
import { SDK_VERSION } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { type ReplyFn, startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { recordRetryWaits } from "../support/retry-waits.ts";

async function serve(reply?: ReplyFn) {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  return server;
}

interface ApiOptions {
  secretKey?: string;
  additionalHeaders?: Record<string, string>;
}

/** The `api` of a client of `baseUrl`, whose waits between retries are recorded instead of slept. */
function apiFor(baseUrl: string, { secretKey = "sk-1", additionalHeaders }: ApiOptions = {}) {
  const delays = recordRetryWaits();
  const svc = new SvcClient({ baseUrl, publicKey: "pk-1", secretKey, additionalHeaders, timeout: 5 });
  onTestFinished(() => svc.shutdown());
  return { api: svc.api, delays };
}

describe("authentication and headers", () => {
  it("sends Basic auth of public and secret key and the SDK identification headers", async () => {
    const server = await serve();
    const { api } = apiFor(server.url);

    await api.health.health();

    const headers = server.seen[0]?.headers;
    expect(headers?.authorization).toBe(`Basic ${Buffer.from("pk-1:sk-1").toString("base64")}`);
    expect(headers?.["x-svc-sdk-name"]).toBe("javascript");
    expect(headers?.["x-svc-sdk-version"]).toBe(SDK_VERSION);
    expect(headers?.["x-svc-public-key"]).toBe("pk-1");
  });

  it("sends no Authorization header when the secret key is missing", async () => {
    const server = await serve();
    const { api } = apiFor(server.url, { secretKey: "" });

    await api.health.health();

    expect(server.seen[0]?.headers.authorization).toBeUndefined();
    expect(server.seen[0]?.headers["x-svc-public-key"]).toBe("pk-1");
  });

  it("adds the client's additional headers without letting them replace the SDK headers", async () => {
    const server = await serve();
    const { api } = apiFor(server.url, { additionalHeaders: { "X-Team": "search", "X-Svc-Sdk-Name": "other" } });

    await api.health.health();

    expect(server.seen[0]?.headers["x-team"]).toBe("search");
    expect(server.seen[0]?.headers["x-svc-sdk-name"]).toBe("javascript");
  });

  it("lets per-call headers override any header case-insensitively, sending one value", async () => {
    const server = await serve();
    const { api } = apiFor(server.url, { additionalHeaders: { "x-team": "search" } });

    await api.health.health(
      {},
      { headers: { "X-TEAM": "ranking", "X-SVC-SDK-NAME": "custom", Authorization: "Bearer t" } },
    );

    const seen = server.seen[0];
    expect(seen?.headers["x-team"]).toBe("ranking");
    expect(seen?.headers["x-svc-sdk-name"]).toBe("custom");
    expect(seen?.headers.authorization).toBe("Bearer t");
    const names = (seen?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names.filter((n) => n === "x-team" || n === "x-svc-sdk-name" || n === "authorization")).toHaveLength(3);
  });

  it("removes a header that a per-call option sets to null", async () => {
    const server = await serve();
    const { api } = apiFor(server.url);

    await api.health.health({}, { headers: { "x-svc-public-key": null } });

    expect(server.seen[0]?.headers["x-svc-public-key"]).toBeUndefined();
  });
});

describe("query serialization", () => {
  it("repeats array values, writes dates as ISO-8601 and skips absent values", async () => {
    const server = await serve();
    const { api } = apiFor(server.url);
    const from = new Date("2026-01-02T03:04:05.678Z");

    await api.observations.getMany({ environment: ["prod", "staging"], fromStartTime: from, traceId: undefined });

    const query = server.seen[0]?.query;
    expect(query?.getAll("environment")).toEqual(["prod", "staging"]);
    expect(query?.get("fromStartTime")).toBe("2026-01-02T03:04:05.678Z");
    expect(query?.has("traceId")).toBe(false);
  });

  it("sends JSON-typed parameters as JSON text and passes a string through unchanged", async () => {
    const server = await serve();
    const { api } = apiFor(server.url);
    const filter = [{ type: "string" as const, column: "name", operator: "=", value: "chat" }];
    const query = {
      view: "observations" as const,
      metrics: [{ measure: "count", aggregation: "count" as const }],
      fromTimestamp: "2026-01-01T00:00:00.000Z",
      toTimestamp: "2026-02-01T00:00:00.000Z",
    };

    await api.observations.getMany({ filter });
    await api.metrics.metrics({ query });
    await api.observations.getMany({ filter: '[{"type":"null"}]' });

    expect(JSON.parse(server.seen[0]?.query.get("filter") ?? "")).toEqual(filter);
    expect(JSON.parse(server.seen[1]?.query.get("query") ?? "")).toEqual(query);
    expect(server.seen[2]?.query.get("filter")).toBe('[{"type":"null"}]');
  });

  it("lets queryParams of the request options replace generated parameters", async () => {
    const server = await serve();
    const { api } = apiFor(server.url);

    await api.models.list({ page: 1, limit: 10 }, { queryParams: { limit: 99, extra: "x" } });

    expect(server.seen[0]?.url).toBe("/api/public/models?page=1&limit=99&extra=x");
  });
});

describe("errors", () => {
  const cases = [
    [400, BadRequestError],
    [401, UnauthorizedError],
    [403, AccessDeniedError],
    [404, NotFoundError],
    [405, MethodNotAllowedError],
    [409, ConflictError],
    [429, TooManyRequestsError],
    [500, ServerError],
    [503, ServerError],
    [418, SvcAPIError],
  ] as const;

  it.each(cases)("maps status %i to its error class with status, body and response", async (status, ErrorClass) => {
    const server = await serve(() => ({ status, json: { message: "nope" } }));
    const { api } = apiFor(server.url);

    const error = await api.models.get("m-1", {}, { maxRetries: 0 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(SvcAPIError);
    expect(error).toMatchObject({ statusCode: status, body: { message: "nope" } });
    expect((error as SvcAPIError).rawResponse?.status).toBe(status);
    expect((error as Error).message).toContain("GET /api/public/models/m-1 on 127.0.0.1");
  });

  it("keeps a body that is not JSON as text", async () => {
    const server = await serve(() => ({ status: 404, text: "no such page" }));
    const { api } = apiFor(server.url);

    const error = await api.models.get("m-1").catch((e: unknown) => e);

    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ statusCode: 404, body: "no such page" });
  });

  it("shows at most 300 characters of a long text body in the message, marked as cut", async () => {
    const body = `${"a".repeat(300)}${"z".repeat(100)}`;
    const server = await serve(() => ({ status: 500, text: body }));
    const { api } = apiFor(server.url);

    const error = (await api.models.get("m-1", {}, { maxRetries: 0 }).catch((e: unknown) => e)) as SvcAPIError;

    expect(error.message).toContain(`: ${"a".repeat(300)}…`);
    expect(error.message).not.toContain("z");
    expect(error.body).toBe(body);
  });
});

describe("retries", () => {
  it.each([408, 429, 500, 502, 503])("retries status %i and returns the later success", async (status) => {
    let calls = 0;
    const server = await serve(() => (++calls === 1 ? { status } : { status: 200, json: { status: "OK" } }));
    const { api } = apiFor(server.url);

    const result = await api.health.health();

    expect(result).toEqual({ status: "OK" });
    expect(server.seen).toHaveLength(2);
  });

  it("gives up after maxRetries (default 2, so 3 requests) and throws the last error", async () => {
    const server = await serve(() => ({ status: 500, json: { message: "down" } }));
    const { api, delays } = apiFor(server.url);

    const error = await api.health.health().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ServerError);
    expect(server.seen).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("never retries other 4xx statuses", async () => {
    const server = await serve(() => ({ status: 400, json: { message: "bad" } }));
    const { api } = apiFor(server.url);

    await expect(api.health.health()).rejects.toBeInstanceOf(BadRequestError);
    expect(server.seen).toHaveLength(1);
  });

  it("follows the maxRetries request option, capped at 10", async () => {
    const server = await serve(() => ({ status: 503 }));
    const { api } = apiFor(server.url);

    await expect(api.health.health({}, { maxRetries: 0 })).rejects.toBeInstanceOf(ServerError);
    expect(server.seen).toHaveLength(1);
    await expect(api.health.health({}, { maxRetries: 1000 })).rejects.toBeInstanceOf(ServerError);
    expect(server.seen).toHaveLength(1 + 11);
  });

  it("retries a dropped connection and returns the later success", async () => {
    let calls = 0;
    const server = await serve(() => (++calls === 1 ? { destroy: true } : { status: 200, json: { ok: true } }));
    const { api } = apiFor(server.url);

    await expect(api.health.health()).resolves.toEqual({ ok: true });
    expect(server.seen).toHaveLength(2);
  });

  it("throws SvcAPIError with the network error as cause when every attempt fails", async () => {
    const server = await serve(() => ({ destroy: true }));
    const { api } = apiFor(server.url);

    const error = await api.health.health().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcAPIError);
    expect((error as SvcAPIError).statusCode).toBeUndefined();
    expect((error as Error).cause).toBeDefined();
    expect(server.seen).toHaveLength(3);
  });

  it("backs off exponentially with jitter within ±25 % of 1 s, 2 s", async () => {
    const server = await serve(() => ({ status: 503 }));
    const { api, delays } = apiFor(server.url);

    await api.health.health().catch(() => undefined);

    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(750);
    expect(delays[0]).toBeLessThanOrEqual(1250);
    expect(delays[1]).toBeGreaterThanOrEqual(1500);
    expect(delays[1]).toBeLessThanOrEqual(2500);
  });

  it("waits the seconds a Retry-After header asks for", async () => {
    let calls = 0;
    const server = await serve(() =>
      ++calls === 1 ? { status: 429, headers: { "retry-after": "3" } } : { status: 200 },
    );
    const { api, delays } = apiFor(server.url);

    await api.health.health();

    expect(delays).toEqual([3000]);
  });

  it("waits until the HTTP date of a Retry-After header", async () => {
    let calls = 0;
    const when = new Date(Date.now() + 10_000).toUTCString();
    const server = await serve(() =>
      ++calls === 1 ? { status: 503, headers: { "retry-after": when } } : { status: 200 },
    );
    const { api, delays } = apiFor(server.url);

    await api.health.health();

    expect(delays[0]).toBeGreaterThan(8000);
    expect(delays[0]).toBeLessThanOrEqual(10_000);
  });

  it("caps a Retry-After wait at 60 seconds", async () => {
    let calls = 0;
    const server = await serve(() =>
      ++calls === 1 ? { status: 503, headers: { "retry-after": "3600" } } : { status: 200 },
    );
    const { api, delays } = apiFor(server.url);

    await api.health.health();

    expect(delays).toEqual([60_000]);
  });

  it("caps exponential backoff at 30 seconds", async () => {
    const server = await serve(() => ({ status: 503 }));
    const { api, delays } = apiFor(server.url);

    await api.health.health({}, { maxRetries: 10 }).catch(() => undefined);

    expect(delays).toHaveLength(10);
    expect(Math.max(...delays)).toBeLessThanOrEqual(30_000);
    expect(delays.at(-1)).toBeGreaterThanOrEqual(22_500);
  });

  it("does not retry a 409, which another attempt would not change", async () => {
    const server = await serve(() => ({ status: 409, json: { message: "exists" } }));
    const { api, delays } = apiFor(server.url);

    const error = await api.health.health().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConflictError);
    expect(server.seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("ignores request options passed in place of the empty request in JavaScript", async () => {
    const server = await serve(() => ({ status: 503 }));
    const { api } = apiFor(server.url);
    const health = api.health.health as unknown as (options: unknown) => Promise<unknown>;

    await health.call(api.health, { maxRetries: 0 }).catch(() => undefined);

    expect(server.seen).toHaveLength(3);
  });
});

describe("timeouts and abort", () => {
  it("retries an attempt that exceeds timeoutInSeconds, then throws SvcAPITimeoutError", async () => {
    const server = await serve(() => ({ status: 200, json: {}, delayMs: 500 }));
    const { api, delays } = apiFor(server.url);

    const error = await api.health.health({}, { timeoutInSeconds: 0.05 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcAPITimeoutError);
    expect(error).toBeInstanceOf(SvcAPIError);
    expect(server.seen).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("returns the answer of a retry after a timed-out attempt", async () => {
    let calls = 0;
    const server = await serve(() => (++calls === 1 ? { status: 200, json: {}, delayMs: 500 } : { json: { ok: 1 } }));
    const { api } = apiFor(server.url);

    await expect(api.health.health({}, { timeoutInSeconds: 0.05 })).resolves.toEqual({ ok: 1 });
    expect(server.seen).toHaveLength(2);
  });

  it("uses the client's timeout option as the default time limit", async () => {
    const server = await serve(() => ({ status: 200, json: {}, delayMs: 500 }));
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk", timeout: 0.05 });

    await expect(svc.api.health.health({}, { maxRetries: 0 })).rejects.toBeInstanceOf(SvcAPITimeoutError);
  });

  it("falls through a timeoutInSeconds of 0 to the client's time limit, with one warning naming the value", async () => {
    const logs = captureLogs();
    const server = await serve(() => ({ status: 200, json: { ok: 1 }, delayMs: 50 }));
    const { api } = apiFor(server.url);

    await expect(api.health.health({}, { timeoutInSeconds: 0, maxRetries: 0 })).resolves.toEqual({ ok: 1 });
    await expect(api.health.health({}, { timeoutInSeconds: 0, maxRetries: 0 })).resolves.toEqual({ ok: 1 });

    expect(server.seen).toHaveLength(2);
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "[Svc SDK] svc.api: the timeoutInSeconds request option must be a number > 0, got 0; using 5 (the client's timeout)",
    ]);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const server = await serve();
    const { api } = apiFor(server.url);

    const error = await api.health.health({}, { abortSignal: AbortSignal.abort() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcAPIError);
    expect((error as Error).message).toContain("aborted");
    expect(server.seen).toHaveLength(0);
  });

  it("stops a request in flight when the signal aborts, and does not retry", async () => {
    const controller = new AbortController();
    const server = await serve(() => {
      controller.abort();
      return { status: 503, delayMs: 200 };
    });
    const { api } = apiFor(server.url);

    const error = await api.health.health({}, { abortSignal: controller.signal }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcAPIError);
    expect((error as Error).message).toContain("aborted");
    expect(server.seen).toHaveLength(1);
  });

  it("stops waiting between retries when the signal aborts", async () => {
    const controller = new AbortController();
    const server = await serve(() => ({ status: 503 }));
    const { api } = apiFor(server.url);
    recordRetryWaits((ms, signal) => {
      controller.abort();
      return sleep(ms, signal);
    });

    const error = await api.health.health({}, { abortSignal: controller.signal }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcAPIError);
    expect((error as Error).message).toContain("aborted");
    expect(server.seen).toHaveLength(1);
  });
});

describe("responses", () => {
  it("resolves to the parsed body, and withRawResponse also gives the response", async () => {
    const server = await serve(() => ({ status: 200, json: { id: "m-1" }, headers: { "x-request-id": "r-1" } }));
    const { api } = apiFor(server.url);

    const { data, rawResponse } = await api.models.get("m-1").withRawResponse();

    expect(data).toEqual({ id: "m-1" });
    expect(rawResponse.status).toBe(200);
    expect(rawResponse.headers.get("x-request-id")).toBe("r-1");
  });

  it("resolves to undefined for an empty answer", async () => {
    const server = await serve(() => ({ status: 204 }));
    const { api } = apiFor(server.url);

    await expect(api.scores.delete("s-1")).resolves.toBeUndefined();
  });

  it("reaches the server through SvcClient.api with the client's base URL, keys and additional headers", async () => {
    const server = await serve(() => ({ status: 200, json: { data: [{ id: "proj-1" }] } }));
    const svc = new SvcClient({
      baseUrl: `${server.url}/`,
      publicKey: "pk-x",
      secretKey: "sk-x",
      additionalHeaders: { "X-Team": "search" },
    });

    const projects = await svc.api.projects.get();

    expect(projects.data[0]?.id).toBe("proj-1");
    expect(server.seen[0]?.path).toBe("/api/public/projects");
    expect(server.seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from("pk-x:sk-x").toString("base64")}`);
    expect(server.seen[0]?.headers["x-team"]).toBe("search");
  });
});

describe("methods", () => {
  it("send their path parameters encoded, in route order, and the request's query parameters", async () => {
    const server = await serve(() => ({ json: { ok: true } }));
    const { api } = apiFor(server.url);

    await api.projects.deleteApiKey("p 1", "k/2");
    await api.prompts.get("greeting", { label: "staging" });

    expect(server.seen.map((req) => `${req.method} ${req.path}`)).toEqual([
      "DELETE /api/public/projects/p%201/apiKeys/k%2F2",
      "GET /api/public/v2/prompts/greeting",
    ]);
    expect(server.seen[1]?.query.toString()).toBe("label=staging");
  });

  it("return their ApiPromise at once and reject with the typed error", async () => {
    const server = await serve(() => ({ status: 404, json: { message: "no such score" } }));
    const { api } = apiFor(server.url);

    const pending = api.scores.delete("s-1", {}, { maxRetries: 0 });

    expect(typeof pending.withRawResponse).toBe("function");
    await expect(pending).rejects.toBeInstanceOf(NotFoundError);
  });
});
