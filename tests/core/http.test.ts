import { apiHeaders, describeFailure, type HttpRequest, httpRequest, SDK_VERSION, sleep } from "@svc/core";
import { describe, expect, it, onTestFinished } from "vitest";
import { type ReplyFn, startServer } from "../support/http-server.ts";
import { recordRetryWaits } from "../support/retry-waits.ts";

async function serve(reply?: ReplyFn) {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  return server;
}

/** A request whose waits between retries are recorded, not slept. */
function request(url: string, overrides: Partial<HttpRequest> = {}): { request: HttpRequest; delays: number[] } {
  return {
    delays: recordRetryWaits(),
    request: {
      method: "POST",
      url,
      headers: { "content-type": "application/json", authorization: "Basic c2VjcmV0" },
      body: '{"a":1}',
      attemptTimeoutMs: 5000,
      maxRetries: 3,
      ...overrides,
    },
  };
}

describe("httpRequest", () => {
  it("sends only the headers given, plus content-length, and a User-Agent naming the SDK and the runtime", async () => {
    const server = await serve();
    const agent = apiHeaders(undefined)["user-agent"] as string;
    const result = await httpRequest(
      request(`${server.url}/x`, { headers: { "user-agent": agent, "x-a": "1" } }).request,
    );

    expect(result.ok).toBe(true);
    const names = (server.seen[0]?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names.sort()).toEqual(["connection", "content-length", "host", "user-agent", "x-a"]);
    expect(server.seen[0]?.headers["user-agent"]).toBe(
      `svc-sdk-js/${SDK_VERSION} (node ${process.versions.node}; ${process.platform} ${process.arch})`,
    );
  });

  it.each([408, 429, 500, 502, 503, 504])("retries status %i and returns the later success", async (status) => {
    let calls = 0;
    const server = await serve(() => (++calls === 1 ? { status } : { status: 200, json: { ok: true } }));
    const { request: req, delays } = request(server.url);

    const result = await httpRequest(req);

    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(delays).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 409, 413, 422])("fails at once on status %i, without a retry", async (status) => {
    const server = await serve(() => ({ status, json: { message: "no" } }));
    const { request: req, delays } = request(server.url);

    const result = await httpRequest(req);

    expect(result).toMatchObject({ ok: false, attempts: 1, failure: { kind: "status", status } });
    expect(server.seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("retries a dropped connection, naming its error code", async () => {
    let calls = 0;
    const server = await serve(() =>
      ++calls === 1 ? { destroy: true } : calls === 2 ? { status: 200 } : { destroy: true },
    );
    const { request: req, delays } = request(server.url);

    const result = await httpRequest(req);
    const dropped = await httpRequest({ ...req, maxRetries: 0 });

    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(delays).toHaveLength(1);
    expect(dropped).toMatchObject({ ok: false, attempts: 1, failure: { kind: "network", code: "ECONNRESET" } });
  });

  it("names ECONNREFUSED when nothing listens, and stops after maxRetries", async () => {
    const server = await serve();
    await server.close();
    const { request: req, delays } = request(server.url, { maxRetries: 2 });

    const result = await httpRequest(req);

    expect(result).toMatchObject({ ok: false, attempts: 3, failure: { kind: "network", code: "ECONNREFUSED" } });
    expect(delays).toHaveLength(2);
  });

  it("waits what Retry-After asks, in seconds or as an HTTP date", async () => {
    const inSeven = new Date(Date.now() + 7000).toUTCString();
    let calls = 0;
    const server = await serve(() =>
      ++calls === 1
        ? { status: 429, headers: { "retry-after": "3" } }
        : calls === 2
          ? { status: 503, headers: { "retry-after": inSeven } }
          : { status: 200 },
    );
    const { request: req, delays } = request(server.url);

    await httpRequest(req);

    expect(delays[0]).toBe(3000);
    expect(delays[1]).toBeGreaterThan(5000);
    expect(delays[1]).toBeLessThanOrEqual(7000);
  });

  it("gives up at the deadline, whatever attempts remain, and says so", async () => {
    const server = await serve(() => ({ status: 503, headers: { "retry-after": "10" } }));
    const { request: req } = request(server.url, { deadline: Date.now() + 2000, maxRetries: 10 });

    const result = await httpRequest(req);

    expect(result).toMatchObject({ ok: false, attempts: 1, failure: { kind: "status", status: 503 } });
  });

  it("bounds each attempt by its time limit and retries it", async () => {
    let calls = 0;
    const server = await serve(() => (++calls === 1 ? { delayMs: 5000, status: 200 } : { status: 200 }));
    const { request: req } = request(server.url, { attemptTimeoutMs: 50 });

    const result = await httpRequest(req);

    expect(result).toMatchObject({ ok: true, attempts: 2 });
  });

  it("cuts an attempt short at the deadline when it comes before the attempt's own limit", async () => {
    const server = await serve(() => ({ delayMs: 5000, status: 200 }));
    const started = Date.now();
    const { request: req } = request(server.url, { attemptTimeoutMs: 10_000, deadline: Date.now() + 100 });

    const result = await httpRequest(req);

    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("fails at once, sending nothing, for an invalid URL or an unsupported scheme", async () => {
    for (const url of ["htp:/x", "not a url", "ftp://127.0.0.1/x"]) {
      const result = await httpRequest(request(url).request);
      expect(result).toMatchObject({ ok: false, attempts: 0, failure: { kind: "invalid-url" } });
    }
  });

  it("follows a same-origin 307 and 308 with the method and body replayed", async () => {
    const server = await serve((req) =>
      req.path === "/a"
        ? { status: 307, headers: { location: "/b" } }
        : req.path === "/b"
          ? { status: 308, headers: { location: "/c" } }
          : { status: 200, json: { at: req.path } },
    );

    const result = await httpRequest(request(`${server.url}/a`).request);

    expect(result.ok).toBe(true);
    expect(server.seen.map((r) => [r.method, r.path, r.body.toString()])).toEqual([
      ["POST", "/a", '{"a":1}'],
      ["POST", "/b", '{"a":1}'],
      ["POST", "/c", '{"a":1}'],
    ]);
    expect(server.seen[2]?.headers.authorization).toBe("Basic c2VjcmV0");
  });

  it("follows a 301, 302 and 303 of a GET, and fails on one of a POST without sending it on", async () => {
    for (const status of [301, 302, 303]) {
      const server = await serve((req) =>
        req.path === "/a" ? { status, headers: { location: "/b" } } : { status: 200, json: { at: req.path } },
      );

      const get = await httpRequest(request(`${server.url}/a`, { method: "GET", body: undefined }).request);
      const post = await httpRequest(request(`${server.url}/a`).request);

      expect(get.ok).toBe(true);
      expect(post).toMatchObject({
        ok: false,
        attempts: 1,
        failure: { kind: "status", status, redirect: { stop: "method", to: `${server.url}/b` } },
      });
      expect(server.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /a", "GET /b", "POST /a"]);
    }
  });

  it("fails on a final 3xx that is not followed (304, no Location), never retrying it", async () => {
    const server = await serve((req) => (req.path === "/304" ? { status: 304 } : { status: 302 }));

    const notModified = await httpRequest(request(`${server.url}/304`, { method: "GET", body: undefined }).request);
    const nowhere = await httpRequest(request(`${server.url}/302`, { method: "GET", body: undefined }).request);

    expect(notModified).toMatchObject({ ok: false, attempts: 1, failure: { status: 304 } });
    expect(nowhere).toMatchObject({
      ok: false,
      attempts: 1,
      failure: { status: 302, redirect: { stop: "no-location" } },
    });
    expect(server.seen).toHaveLength(2);
  });

  it("names a redirect's target without its credentials or query", async () => {
    const server = await serve(() => ({
      status: 301,
      headers: { location: "https://user:pa55word@bucket.example/upload?X-Signature=abc123" },
    }));

    const result = await httpRequest(request(`${server.url}/a`).request);

    expect(result.ok).toBe(false);
    const text = result.ok ? "" : describeFailure(result.failure, "POST", result.url);
    expect(text).toContain("redirects to https://bucket.example/upload,");
    expect(text).not.toMatch(/pa55word|abc123/);
  });

  it("stops at a redirect to another origin (host or port), sending it nothing, unless asked to follow it", async () => {
    const other = await serve(() => ({ status: 200 }));
    const server = await serve(() => ({
      status: 307,
      headers: { location: `${other.url.replace("127.0.0.1", "localhost")}/elsewhere` },
    }));

    const stopped = await httpRequest(request(`${server.url}/a`).request);

    expect(stopped).toMatchObject({
      ok: false,
      failure: { kind: "status", status: 307, redirect: { stop: "other-origin" } },
    });
    expect(other.seen).toEqual([]);

    const followed = await httpRequest({ ...request(`${server.url}/a`).request, followRedirectsElsewhere: true });

    expect(followed.ok).toBe(true);
    expect(other.seen[0]?.path).toBe("/elsewhere");
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.body.toString()).toBe('{"a":1}');
  });

  it("stops waiting between retries when the caller's signal aborts", async () => {
    const server = await serve(() => ({ status: 503 }));
    const controller = new AbortController();
    const { request: req } = request(server.url, { signal: controller.signal });
    recordRetryWaits((ms, signal) => {
      controller.abort();
      return sleep(ms, signal);
    });

    const result = await httpRequest(req);

    expect(result).toMatchObject({ ok: false, failure: { kind: "aborted" } });
    expect(server.seen).toHaveLength(1);
  });
});
