import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcAPIError, SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer } from "../support/faults.ts";
import type { Reply, SeenRequest, TestServer } from "../support/http-server.ts";
import { type CapturedLog, captureLogs } from "../support/logs.ts";

const TRACES = "/api/public/otel/v1/traces";
const SCORES = "/api/public/scores";
const SHORT = { flushTimeout: 2, timeout: 1, flushInterval: 3600 };

/** A delivery route under test: sends `count` items to `baseUrl` and says what its `health()` counted. */
interface Route {
  name: string;
  path: string;
  owner: string;
  items: string;
  deliver(
    baseUrl: string,
    count: number,
    headers?: Record<string, string>,
  ): Promise<{ sent: number; rejected: number; lastStatus?: number; lastHost?: string }>;
}

/** What a route's `health()` says of its deliveries. */
function counts(health: {
  sent: number;
  dropped: { rejected: number };
  lastError?: { status?: number; host?: string };
}) {
  const { sent, dropped, lastError } = health;
  return { sent, rejected: dropped.rejected, lastStatus: lastError?.status, lastHost: lastError?.host };
}

const spans: Route = {
  name: "spans (OTLP through SvcSpanProcessor)",
  path: TRACES,
  owner: "SvcSpanProcessor",
  items: "spans",
  async deliver(baseUrl, count, additionalHeaders) {
    const keys = { baseUrl, publicKey: "pk-test", secretKey: "sk-test", additionalHeaders };
    const processor = new SvcSpanProcessor({ ...keys, ...SHORT }, {});
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    onTestFinished(() => provider.shutdown());
    const tracer = provider.getTracer("svc-sdk");
    for (let i = 0; i < count; i++) tracer.startSpan(`s${i}`).end();
    await processor.forceFlush();
    return counts(processor.health());
  },
};

const scores: Route = {
  name: "scores (SvcClient)",
  path: SCORES,
  owner: "ScoreManager",
  items: "scores",
  async deliver(baseUrl, count, additionalHeaders) {
    const keys = { baseUrl, publicKey: "pk-test", secretKey: "sk-test", additionalHeaders };
    const svc = new SvcClient({ ...keys, ...SHORT, flushAt: 1000 });
    onTestFinished(() => svc.shutdown());
    for (let i = 0; i < count; i++) svc.score.create({ name: `s${i}`, value: i, traceId: "t-1" });
    await svc.flush();
    return counts(svc.health().score);
  },
};

function errors(logs: CapturedLog[]): string[] {
  return logs.filter((l) => l.level === "error" || l.level === "warn").map((l) => l.message);
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe.each([spans, scores])("a final redirect on the route of $name", (route) => {
  it.each([301, 302, 303])(
    "counts a %i to another address as rejected, never as sent, and names both addresses and the fix",
    async (status) => {
      const logs = captureLogs(LogLevel.INFO);
      const moved = await faultServer(() => ({ status: 200, json: {} }));
      const server = await faultServer((req) =>
        req.path === route.path ? { status, headers: { location: `${moved.url}${req.path}` } } : { status: 200 },
      );

      const health = await route.deliver(server.url, 3);

      expect(health).toMatchObject({ sent: 0, rejected: 3, lastStatus: status });
      expect(server.seen.filter((r) => r.path === route.path)).toHaveLength(1);
      expect(moved.seen).toEqual([]);
      const lines = errors(logs);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${route.owner}: ${route.items} dropped`);
      expect(lines[0]).toContain(`3 ${route.items}`);
      expect(lines[0]).toContain(`HTTP ${status} from ${new URL(server.url).host} POST ${route.path}`);
      expect(lines[0]).toContain(`${server.url}${route.path} redirects to ${moved.url}${route.path}`);
      expect(lines[0]).toMatch(new RegExp(`[Ss]et baseUrl \\(or SVC_BASE_URL\\) to ${literal(moved.url)}[ ,.]`));
    },
  );

  it.each([307, 308])(
    "never follows a %i to another origin: counted rejected, nothing reaches it, one line names both addresses and the fix",
    async (status) => {
      const logs = captureLogs(LogLevel.INFO);
      const other = await faultServer(() => ({ status: 401, json: { message: "who are you" } }));
      const server = await faultServer((req) =>
        req.path === route.path ? { status, headers: { location: `${other.url}${req.path}` } } : { status: 200 },
      );

      const health = await route.deliver(server.url, 3, { "x-api-key": "extra-secret" });

      expect(other.seen).toEqual([]);
      expect(health).toEqual({ sent: 0, rejected: 3, lastStatus: status, lastHost: new URL(server.url).host });
      expect(server.seen.filter((r) => r.path === route.path)).toHaveLength(1);
      const lines = errors(logs);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${route.owner}: ${route.items} dropped`);
      expect(lines[0]).toContain(`3 ${route.items}`);
      expect(lines[0]).toContain(`HTTP ${status} from ${new URL(server.url).host} POST ${route.path}`);
      expect(lines[0]).toContain(`${server.url}${route.path} redirects to ${other.url}${route.path}`);
      expect(lines[0]).toMatch(new RegExp(`[Ss]et baseUrl \\(or SVC_BASE_URL\\) to ${literal(other.url)}[ ,.]`));
      expect(lines[0]).not.toContain("keys");
    },
  );

  it("counts a 302 without a Location header as rejected and says the server gave no address", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer((req) => (req.path === route.path ? { status: 302 } : { status: 200 }));

    const health = await route.deliver(server.url, 2);

    expect(health).toMatchObject({ sent: 0, rejected: 2, lastStatus: 302 });
    const lines = errors(logs);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `HTTP 302 from ${new URL(server.url).host} POST ${route.path} without a Location header`,
    );
    expect(lines[0]).toMatch(/baseUrl \(or SVC_BASE_URL\)/);
  });

  it("follows five 307s and counts the sixth as rejected, naming the first and the last address", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const hop = (req: SeenRequest): Reply => {
      const index = req.path === route.path ? 0 : Number(req.path.slice("/hop/".length));
      return { status: 307, headers: { location: `/hop/${index + 1}` } };
    };
    const server: TestServer = await faultServer(hop);

    const health = await route.deliver(server.url, 2);

    expect(health).toMatchObject({ sent: 0, rejected: 2, lastStatus: 307 });
    expect(server.seen.map((r) => r.path)).toEqual([route.path, "/hop/1", "/hop/2", "/hop/3", "/hop/4", "/hop/5"]);
    const lines = errors(logs);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`HTTP 307 from ${new URL(server.url).host} POST ${route.path}`);
    expect(lines[0]).toContain(
      `more than 5 redirects from ${server.url}${route.path}, the last to ${server.url}/hop/6`,
    );
    expect(lines[0]).toMatch(/baseUrl \(or SVC_BASE_URL\)/);
  });
});

describe("a final redirect on a REST call", () => {
  it("throws a SvcAPIError with the status, both addresses and the baseUrl to set", async () => {
    const moved = await faultServer(() => ({ status: 200, json: {} }));
    const server = await faultServer((req) => ({ status: 301, headers: { location: `${moved.url}${req.path}` } }));
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test", flushInterval: 3600 });
    onTestFinished(() => svc.shutdown());

    const error = await svc.api.scores
      .create([{ name: "n", value: 1, traceId: "t" }], { maxRetries: 0 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcAPIError);
    expect(error).toMatchObject({ statusCode: 301 });
    expect((error as Error).message).toContain(`Set baseUrl (or SVC_BASE_URL) to ${moved.url}`);
    expect(moved.seen).toEqual([]);
  });

  it.each([
    ["GET", 302],
    ["POST", 307],
  ])("never follows a %s answered %i to another origin: a SvcAPIError names both addresses", async (method, status) => {
    const other = await faultServer(() => ({ status: 200, json: { data: [], meta: {} } }));
    const server = await faultServer((req) => ({ status, headers: { location: `${other.url}${req.path}` } }));
    const svc = new SvcClient({
      baseUrl: server.url,
      publicKey: "pk-test",
      secretKey: "sk-test",
      flushInterval: 3600,
      additionalHeaders: { "x-api-key": "extra-secret" },
    });
    onTestFinished(() => svc.shutdown());

    const call =
      method === "GET"
        ? svc.api.scores.getMany({}, { maxRetries: 0 })
        : svc.api.scores.create([{ name: "n", value: 1, traceId: "t" }], { maxRetries: 0 });
    const error = await (call as Promise<unknown>).catch((e: unknown) => e);

    expect(other.seen).toEqual([]);
    expect(error).toBeInstanceOf(SvcAPIError);
    expect(error).toMatchObject({ statusCode: status });
    expect((error as Error).message).toContain(new URL(server.url).host);
    expect((error as Error).message).toContain(`Set baseUrl (or SVC_BASE_URL) to ${other.url}`);
  });
});
