import { SvcClient, type SvcClientParams } from "@svc/client";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { clockedOutage, downServer, faultServer, RETRY_NOW, SILENT, script, timed } from "../support/faults.ts";
import type { SeenRequest, TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const SCORES = "/api/public/scores";
const isScores = (req: SeenRequest) => req.path === SCORES;
const FAST: SvcClientParams = { flushTimeout: 2, timeout: 1, flushInterval: 3600, flushAt: 1000 };
const MARGIN_MS = 3_000;

function client(baseUrl: string, params: SvcClientParams = {}) {
  const svc = new SvcClient({ baseUrl, publicKey: "pk-test", secretKey: "sk-test", ...FAST, ...params });
  onTestFinished(() => svc.shutdown());
  const create = (count: number) => {
    for (let i = 0; i < count; i++) svc.score.create({ name: `s${i}`, value: i, traceId: "t-1" });
  };
  return { svc, create };
}

function scoreRequests(server: TestServer): SeenRequest[] {
  return server.seen.filter(isScores);
}

function delivered(server: TestServer, accepted = (_: SeenRequest) => true): string[] {
  return scoreRequests(server)
    .filter(accepted)
    .flatMap((r) => (r.json as { name: string }[]).map((s) => s.name))
    .sort();
}

function expected(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `s${i}`).sort();
}

describe("score delivery through faults", () => {
  it("retries 503 and 429 with Retry-After, delivers every score once, and logs the fault and the recovery once each", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(
      script(
        [
          { status: 503, json: {}, headers: RETRY_NOW },
          { status: 429, json: {}, headers: RETRY_NOW },
        ],
        { matches: isScores },
      ),
    );
    const { svc, create } = client(server.url);

    create(250);
    await svc.flush();

    const ok = (r: SeenRequest) => r !== scoreRequests(server)[0] && r !== scoreRequests(server)[1];
    expect(delivered(server, ok)).toEqual(expected(250));
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringMatching(
        /ScoreManager: cannot deliver scores: HTTP 503 from 127\.0\.0\.1:\d+ POST \/api\/public\/scores/,
      ),
      expect.stringMatching(/ScoreManager: delivery recovered after \d+ s: 250 scores delivered late, 0 lost\.$/),
    ]);
    expect(svc.health().score).toMatchObject({ sent: 250, queued: 0, retries: 2 });
  });

  it("sends again after a reset connection", async () => {
    captureLogs(LogLevel.INFO);
    const server = await faultServer(script([{ destroy: true }], { matches: isScores }));
    const { svc, create } = client(server.url, { flushTimeout: 10 });

    create(5);
    await svc.flush();

    expect(delivered(server).filter((n, i, all) => all.indexOf(n) === i)).toEqual(expected(5));
    expect(svc.health().score.sent).toBe(5);
  });

  it("holds scores while the server is down and delivers them once it is up", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const down = await downServer(() => ({ status: 200, json: {} }));
    const { svc, create } = client(down.url, { flushTimeout: 10 });

    create(12);
    let server: TestServer | undefined;
    const upLater = setTimeout(async () => {
      server = await down.up();
    }, 1_500);
    onTestFinished(() => clearTimeout(upLater));
    const { ms } = await timed(() => svc.flush());

    expect(server && delivered(server)).toEqual(expected(12));
    expect(ms).toBeLessThan(10_000 + MARGIN_MS);
    expect(logs[0]?.message).toMatch(
      /cannot deliver scores: ECONNREFUSED on POST 127\.0\.0\.1:\d+\/api\/public\/scores/,
    );
  });

  it("bounds flush() and shutdown() by flushTimeout against a server that never answers, and counts the lost", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    // Each attempt may take 60 s: only flushTimeout bounds the waits.
    const { svc, create } = client(server.url, { timeout: 60, flushTimeout: 1 });

    create(7);
    const flushed = await timed(() => svc.flush());
    const shut = await timed(() => svc.shutdown());

    expect(flushed.ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(shut.ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(svc.health().score.dropped.shutdown).toBe(7);
    expect(logs.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /ScoreManager: scores dropped, not delivered before shutdown: 7 scores: the shutdown deadline passed/,
      ),
    );
  });

  it("gives up a score request that gets no answer after the client's timeout when it is under 10 s, and says so", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    const { svc, create } = client(server.url, { timeout: 1, flushTimeout: 3 });

    create(2);
    await svc.flush();

    expect(scoreRequests(server).length).toBeGreaterThanOrEqual(1);
    expect(svc.health().score.retries).toBeGreaterThanOrEqual(1);
    expect(logs.map((l) => l.message)).toContainEqual(expect.stringMatching(/cannot deliver scores: .*1000 ms/));
  });

  it("waits at most 10 s for one score request, whatever the client's REST timeout", () => {
    const config = (timeout: number) => {
      const svc = new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk-x", timeout });
      onTestFinished(() => svc.shutdown());
      return svc.config.score;
    };

    expect(config(60).attemptTimeoutSeconds).toBe(10);
    expect(config(2).attemptTimeoutSeconds).toBe(2);
  });

  it("waits for a slow server without retrying", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(() => ({ status: 200, json: {}, delayMs: 400 }));
    const { svc, create } = client(server.url);

    create(3);
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(1);
    expect(logs).toEqual([]);
  });

  it("splits what a server refuses with 413 over a size until every part fits", async () => {
    const LIMIT = 2_000;
    const server = await faultServer((req) =>
      req.rawBody.byteLength > LIMIT ? { status: 413, text: "too large" } : { status: 200, json: {} },
    );
    const { svc, create } = client(server.url);

    create(60);
    await svc.flush();

    expect(delivered(server, (r) => r.rawBody.byteLength <= LIMIT)).toEqual(expected(60));
    expect(svc.health().score.dropped.tooLarge).toBe(0);
  });

  it("logs a 207 in the interface's form and does not retry the rejected scores", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(() => ({
      status: 207,
      json: { rejected: 2, errors: [{ index: 0, message: "bad" }] },
    }));
    const { svc, create } = client(server.url);

    create(5);
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(1);
    expect(logs.map((l) => l.message)).toEqual([
      '[Svc SDK] Svc rejected 2 of 5 scores in batch: [{"index":0,"message":"bad"}]',
    ]);
    expect(svc.health().score).toMatchObject({ sent: 3, dropped: expect.objectContaining({ rejected: 2 }) });
  });

  it("follows a 307 or 308 to another path of the same server", async () => {
    for (const status of [307, 308]) {
      const server = await faultServer((req) =>
        isScores(req) ? { status, headers: { location: "/moved/scores" } } : { status: 200, json: {} },
      );
      const { svc, create } = client(server.url);

      create(2);
      await svc.flush();

      expect(server.seen.filter((r) => r.path === "/moved/scores").flatMap((r) => r.json as unknown[])).toHaveLength(2);
    }
  });

  it("sends nothing for an invalid base URL and counts the scores as dropped, at once", async () => {
    captureLogs(LogLevel.INFO);
    const { svc, create } = client("http//missing-colon");

    create(4);
    const { ms } = await timed(() => svc.flush());

    expect(ms).toBeLessThan(MARGIN_MS);
    expect(svc.health().score.dropped.failed).toBe(4);
  });

  it("does not retry 403: one request, one line with a hint about the keys", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(() => ({ status: 403, json: { message: "forbidden" } }));
    const { svc, create } = client(server.url);

    create(3);
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(1);
    expect(svc.health().score.dropped.auth).toBe(3);
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringMatching(
        /scores dropped, the server refused the keys: 3 scores: HTTP 403 .*[Cc]heck the public and secret keys/,
      ),
    ]);
  });

  it("shows the retries of a 10-second outage in health(), with the error, the recovery and nothing dropped", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(clockedOutage(10, { matches: isScores }));
    const { svc, create } = client(server.url, { flushTimeout: 5 });

    create(150);
    await svc.flush();

    const { score } = svc.health();
    expect(delivered(server).filter((n, i, all) => all.indexOf(n) === i)).toEqual(expected(150));
    expect(score).toMatchObject({ sent: 150, queued: 0, inFlight: 0, retries: 4, shutdown: false });
    expect(Object.values(score.dropped).filter((count) => count > 0)).toEqual([]);
    expect(score.lastError).toMatchObject({ kind: "status", status: 503, host: new URL(server.url).host });
    expect(Date.parse(score.lastSuccessAt ?? "") - Date.parse(score.lastError?.at ?? "")).toBe(2_500);
    expect(logs.at(-1)?.message).toMatch(/delivery recovered after 10 s: 150 scores delivered late, 0 lost\.$/);
  });
});
