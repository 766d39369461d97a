import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { clockedOutage, downServer, faultServer, RETRY_NOW, SILENT, script, timed } from "../support/faults.ts";
import type { SeenRequest, TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans, otlpRequests } from "../support/otel.ts";

const TRACES = "/api/public/otel/v1/traces";
const isTraces = (req: SeenRequest) => req.path === TRACES;
/** Short limits, so that every wait of these tests is bounded by a few seconds. */
const FAST: SvcSpanProcessorParams = { flushTimeout: 2, timeout: 1, flushInterval: 3600 };
const MARGIN_MS = 3_000;

function tracing(baseUrl: string, params: SvcSpanProcessorParams = {}) {
  const processor = new SvcSpanProcessor(
    { baseUrl, publicKey: "pk-test", secretKey: "sk-test", ...FAST, ...params },
    {},
  );
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  const tracer = provider.getTracer("svc-sdk");
  const end = (count: number, prefix = "s", attributes = {}) => {
    for (let i = 0; i < count; i++) tracer.startSpan(`${prefix}${i}`, { attributes }).end();
  };
  return { processor, end };
}

function names(server: TestServer): string[] {
  return exportedSpans(server)
    .map((s) => s.name)
    .sort();
}

function expected(count: number, prefix = "s"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`).sort();
}

function lines(logs: { level: string; message: string }[]): string[] {
  return logs.map((l) => `${l.level} ${l.message}`);
}

describe("span export through faults", () => {
  it("retries 503 with Retry-After, delivers every span once, and logs the fault and the recovery once each", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const unavailable = { status: 503, json: { message: "busy" }, headers: RETRY_NOW };
    const server = await faultServer(script([unavailable, unavailable, unavailable], { matches: isTraces }));
    const { processor, end } = tracing(server.url, { flushAt: 10 });

    end(30);
    await processor.forceFlush();

    expect(names(server).filter((n, i, all) => all.indexOf(n) === i)).toEqual(expected(30));
    expect(exportedSpans(server).length - 30).toBe(3 * 10); // the three refused batches, sent again
    expect(lines(logs)).toEqual([
      expect.stringMatching(
        /^warn \[Svc SDK\] SvcSpanProcessor: cannot deliver spans: HTTP 503 from 127\.0\.0\.1:\d+ POST \/api\/public\/otel\/v1\/traces: \{"message":"busy"\}\. 10 spans kept and retried/,
      ),
      expect.stringMatching(
        /^info \[Svc SDK\] SvcSpanProcessor: delivery recovered after \d+ s: 30 spans delivered late, 0 lost\.$/,
      ),
    ]);
    expect(processor.health()).toMatchObject({ sent: 30, queued: 0, retries: 3 });
  });

  it("waits what a 429's Retry-After asks before the next attempt", async () => {
    captureLogs(LogLevel.INFO);
    const server = await faultServer(
      script([{ status: 429, json: {}, headers: { "retry-after": "1" } }], { matches: isTraces }),
    );
    const { processor, end } = tracing(server.url);

    end(3);
    await processor.forceFlush();

    const [first, second] = otlpRequests(server).map((r) => r.receivedAt);
    expect(names(server)).toEqual(expected(3).concat(expected(3)).sort());
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it("sends again after connections are reset, naming the error", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(script([{ destroy: true }, { destroy: true }], { matches: isTraces }));
    const { processor, end } = tracing(server.url, { flushTimeout: 10 });

    end(5);
    const { ms } = await timed(() => processor.forceFlush());

    // Backoff without Retry-After: about 1 s, then 2 s (with jitter).
    expect(new Set(names(server))).toEqual(new Set(expected(5)));
    expect(ms).toBeLessThan(10_000 + MARGIN_MS);
    expect(logs[0]?.message).toMatch(/cannot deliver spans: (ECONNRESET|socket hang up)/);
    expect(logs.at(-1)?.message).toMatch(/delivery recovered after \d+ s: 5 spans delivered late, 0 lost/);
  });

  it("holds spans while the server is down and delivers them once it is up", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const down = await downServer(() => ({ status: 200, json: {} }));
    const { processor, end } = tracing(down.url, { flushTimeout: 10 });

    end(8);
    let server: TestServer | undefined;
    const upLater = setTimeout(async () => {
      server = await down.up();
    }, 1_500);
    onTestFinished(() => clearTimeout(upLater));
    const { ms } = await timed(() => processor.forceFlush()); // refused at first: held and retried until it is up

    expect(server && names(server)).toEqual(expected(8));
    expect(ms).toBeLessThan(10_000 + MARGIN_MS);
    expect(logs[0]?.message).toMatch(
      /cannot deliver spans: ECONNREFUSED on POST 127\.0\.0\.1:\d+\/api\/public\/otel\/v1\/traces/,
    );
    expect(logs.filter((l) => /delivery recovered/.test(l.message))).toHaveLength(1);
  });

  it("bounds forceFlush() and shutdown() by flushTimeout against a server that never answers, and counts the lost", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    const { processor, end } = tracing(server.url, { timeout: 30, flushTimeout: 1 });

    end(4);
    const flushed = await timed(() => processor.forceFlush());
    const shut = await timed(() => processor.shutdown());

    expect(flushed.ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(shut.ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(otlpRequests(server)).toHaveLength(1);
    expect(processor.health().dropped.shutdown).toBe(4);
    expect(lines(logs)).toContainEqual(
      expect.stringMatching(
        /^error \[Svc SDK\] SvcSpanProcessor: spans dropped, not delivered before shutdown: 4 spans: the shutdown deadline passed/,
      ),
    );
  });

  it("waits for a slow server without retrying", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(() => ({ status: 200, json: {}, delayMs: 400 }));
    const { processor, end } = tracing(server.url);

    end(6);
    await processor.forceFlush();

    expect(otlpRequests(server)).toHaveLength(1);
    expect(names(server)).toEqual(expected(6));
    expect(logs).toEqual([]);
  });

  it("splits what a server refuses with 413 over a size, and cuts a single span that alone is too large", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const LIMIT = 6_000;
    const server = await faultServer((req) =>
      req.rawBody.byteLength > LIMIT ? { status: 413, text: "too large" } : { status: 200, json: {} },
    );
    const { processor, end } = tracing(server.url, { compression: "none", flushAt: 100 });

    end(40, "small", { "svc.observation.input": "x".repeat(50) });
    end(1, "huge", { "svc.observation.input": "y".repeat(20_000) });
    await processor.forceFlush();

    const accepted = otlpRequests(server).filter((r) => r.rawBody.byteLength <= LIMIT);
    const delivered = accepted.flatMap((r) => exportedSpans({ ...server, seen: [r] }));
    expect(delivered.map((s) => s.name).sort()).toEqual([...expected(40, "small"), "huge0"].sort());
    const huge = delivered.find((s) => s.name === "huge0");
    expect(String(attributesOf(huge!)["svc.observation.input"])).toMatch(
      /\.\.\.\[truncated: the span was too large to send\]$/,
    );
    expect(logs).toEqual([]);
  });

  it("follows a 307 or 308 to another path of the same server", async () => {
    for (const status of [307, 308]) {
      const server = await faultServer((req) =>
        req.path === TRACES ? { status, headers: { location: "/ingest/v2" } } : { status: 200, json: {} },
      );
      const { processor, end } = tracing(server.url);

      end(2);
      await processor.forceFlush();

      const moved = server.seen.filter((r) => r.path === "/ingest/v2");
      expect(moved).toHaveLength(1);
      expect(moved[0]?.headers.authorization).toBe(`Basic ${Buffer.from("pk-test:sk-test").toString("base64")}`);
    }
  });

  it("sends nothing for an invalid base URL: one error at construction, the spans counted as dropped", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const { processor, end } = tracing("not a url");

    end(3);
    const { ms } = await timed(() => processor.forceFlush());

    expect(ms).toBeLessThan(MARGIN_MS);
    expect(processor.health().dropped.failed).toBe(3);
    expect(lines(logs)[0]).toMatch(
      /^error \[Svc SDK\] SvcSpanProcessor: the base URL "not a url" is not a valid URL; nothing will be sent/,
    );
    expect(lines(logs).filter((l) => l.startsWith("error"))).toHaveLength(2);
  });

  it("does not retry 401: one request, one line with a hint about the keys", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(() => ({ status: 401, json: { message: "bad keys" } }));
    const { processor, end } = tracing(server.url, { flushAt: 5 });

    end(20);
    await processor.forceFlush();

    expect(otlpRequests(server)).toHaveLength(4);
    expect(processor.health().dropped.auth).toBe(20);
    expect(lines(logs)).toEqual([
      expect.stringMatching(
        /^error .*spans dropped, the server refused the keys: 5 spans: HTTP 401 .*[Cc]heck the public and secret keys/,
      ),
    ]);
  });

  it("logs a flapping server's faults and recoveries in full once, then as counts, never one line per batch", async () => {
    const logs = captureLogs(LogLevel.INFO);
    let calls = 0;
    const server = await faultServer((req) =>
      isTraces(req) && calls++ % 2 === 0 ? { status: 503, json: {}, headers: RETRY_NOW } : { status: 200, json: {} },
    );
    // 40 requests one after another: a deadline that a loaded machine does not reach.
    const { processor, end } = tracing(server.url, { flushAt: 5, maxConcurrentExports: 1, flushTimeout: 20 });

    end(100);
    await processor.shutdown();

    expect(new Set(names(server))).toEqual(new Set(expected(100)));
    expect(otlpRequests(server).length).toBeGreaterThanOrEqual(40);
    expect(logs.length).toBeLessThanOrEqual(4);
  });

  it("shows the retries of a 10-second outage in health(), with the error, the recovery and nothing dropped", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(clockedOutage(10, { matches: isTraces }));
    const { processor, end } = tracing(server.url, { flushAt: 10, flushTimeout: 5 });

    end(20);
    await processor.forceFlush();

    const health = processor.health();
    expect(new Set(names(server))).toEqual(new Set(expected(20)));
    expect(health).toMatchObject({ sent: 20, queued: 0, inFlight: 0, retries: 4, shutdown: false });
    expect(Object.values(health.dropped).filter((count) => count > 0)).toEqual([]);
    expect(health.lastError).toMatchObject({ kind: "status", status: 503, host: new URL(server.url).host });
    expect(Date.parse(health.lastSuccessAt ?? "") - Date.parse(health.lastError?.at ?? "")).toBe(2_500);
    expect(logs.at(-1)?.message).toMatch(/delivery recovered after 10 s: 20 spans delivered late, 0 lost\.$/);
  });
});
