import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { type Reply, type ReplyFn, startServer, type TestServer } from "../support/http-server.ts";
import { exportedSpans } from "../support/otel.ts";

/** A program that traces three spans and queues two scores, then does what `ending` says. */
function program(ending: string, options = ""): string {
  return `
    import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
    import { SvcClient } from "@svc/client";
    import { SvcSpanProcessor } from "@svc/otel";
    const keys = { baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-exit", secretKey: "sk-exit-secret" };
    const processor = new SvcSpanProcessor({ ...keys, flushInterval: 3600, flushTimeout: 2 ${options} });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const svc = new SvcClient({ ...keys, flushInterval: 3600, flushAt: 1000, flushTimeout: 2 ${options} });
    const tracer = provider.getTracer("svc-sdk");
    for (const name of ["a", "b", "c"]) tracer.startSpan(name).end();
    svc.score.create({ name: "s1", value: 1, traceId: "t" });
    svc.score.create({ name: "s2", value: 2, traceId: "t" });
    ${ending}
  `;
}

async function sink(reply?: ReplyFn): Promise<TestServer> {
  const server = await startServer(reply ?? (() => ({ status: 200, json: {} })));
  onTestFinished(() => server.close());
  return server;
}

function scoreNames(server: TestServer): string[] {
  return server.seen
    .filter((r) => r.path === "/api/public/scores")
    .flatMap((r) => (r.json as { name: string }[]).map((s) => s.name));
}

describe("when the event loop empties with data queued", () => {
  it("flushes spans and scores on beforeExit, then lets the process end", async () => {
    const server = await sink();

    const result = await runChild(program(""), { env: { SVC_BASE_URL: server.url } });

    expect(result.code).toBe(0);
    expect(
      exportedSpans(server)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["a", "b", "c"]);
    expect(scoreNames(server).sort()).toEqual(["s1", "s2"]);
    expect(result.stderr).not.toContain("not delivered");
  });

  it("leaves them queued with flushOnExit: false, and says how many were not delivered", async () => {
    const server = await sink();

    const result = await runChild(program("", ", flushOnExit: false"), { env: { SVC_BASE_URL: server.url } });

    expect(result.code).toBe(0);
    expect(server.seen).toHaveLength(0);
    expect(result.stderr).toContain(
      "[Svc SDK] the process is exiting with 3 spans and 2 scores not delivered; await shutdown() of the span processor",
    );
  });

  it("flushes once against a server that is down, then lets the process end with one line of what was lost", async () => {
    const server = await sink(() => ({ status: 503, json: { message: "down" } }));

    const result = await runChild(program(""), { env: { SVC_BASE_URL: server.url } });

    expect(result.code).toBe(0);
    expect(result.stderr).toContain("[Svc SDK] the process is exiting with 3 spans and 2 scores not delivered");
    // Bounded: one flush of each kind on beforeExit, within flushTimeout (2 s), then the end.
    expect(server.seen.length).toBeGreaterThan(0);
    expect(result.stderr.match(/not delivered;/g)).toHaveLength(1);
  });

  it("ends within flushTimeout against a server that never answers, though each request may wait far longer", async () => {
    const server = await sink(() => new Promise<Reply>(() => {}));

    const result = await runChild(program(""), { env: { SVC_BASE_URL: server.url }, timeoutMs: 15_000 });

    // Scores wait up to 60 s per attempt and spans 10 s: only the 2 s flushTimeout (plus start-up) bounds this.
    expect(result.signal).toBeNull();
    expect(result.ms).toBeLessThan(8_000);
    expect(result.stderr).toContain("[Svc SDK] the process is exiting with 3 spans and 2 scores not delivered");
  });
});

describe("process.exit() with data queued", () => {
  it("writes one line, at once, saying how many spans and scores were not delivered", async () => {
    const server = await sink();

    const result = await runChild(program("process.exit(3);"), { env: { SVC_BASE_URL: server.url } });

    expect(result.code).toBe(3);
    expect(server.seen).toHaveLength(0);
    expect(result.stderr.trim().split("\n")).toEqual([
      "[Svc SDK] the process is exiting with 3 spans and 2 scores not delivered; await shutdown() of the span processor (or of the tracer provider) and of SvcClient before the process ends.",
    ]);
  });

  it("writes nothing when shutdown() was awaited first", async () => {
    const server = await sink();

    const result = await runChild(
      program("await Promise.all([svc.shutdown(), provider.shutdown()]); process.exit(0);"),
      { env: { SVC_BASE_URL: server.url } },
    );

    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(exportedSpans(server)).toHaveLength(3);
    expect(scoreNames(server)).toHaveLength(2);
  });
});

describe("after shutdown()", () => {
  it("holds no timer or socket that keeps the process alive, keep-alive connections included", async () => {
    // The server keeps connections open (keep-alive) and never closes them itself.
    const server = await sink(() => ({ status: 200, json: {}, headers: { "keep-alive": "timeout=600" } }));

    const result = await runChild(
      program(`
        await svc.api.health.health();
        await Promise.all([svc.shutdown(), provider.shutdown()]);
        console.log("shut down");
      `),
      { env: { SVC_BASE_URL: server.url }, timeoutMs: 10_000 },
    );

    // Ended on its own (no process.exit), well before the keep-alive timeout or the child's time limit.
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("shut down");
    expect(exportedSpans(server)).toHaveLength(3);
  });
});

describe("counts held back to keep the log short", () => {
  /** Spans and scores beyond small queues, dropped and counted, then `ending`; prints the SDK's own counts first. */
  function overflowing(ending: string): string {
    return `
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
      import { SvcClient } from "@svc/client";
      import { SvcSpanProcessor } from "@svc/otel";
      const keys = { baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-exit", secretKey: "sk-exit-secret" };
      const processor = new SvcSpanProcessor({ ...keys, flushInterval: 3600, maxQueueSize: 10, flushOnExit: false, flushTimeout: 1 });
      const provider = new BasicTracerProvider({ spanProcessors: [processor] });
      const svc = new SvcClient({ ...keys, flushInterval: 3600, flushAt: 1000, scoreMaxQueueSize: 5, flushOnExit: false, flushTimeout: 1 });
      const tracer = provider.getTracer("svc-sdk");
      for (let i = 0; i < 1000; i++) tracer.startSpan("s" + i).end();
      for (let i = 0; i < 100; i++) svc.score.create({ name: "score" + i, value: i, traceId: "t" });
      const sum = (h) => Object.entries(h.dropped).reduce((n, [reason, count]) => n + (reason === "sampledOut" ? 0 : count), 0);
      console.log(JSON.stringify({ spans: sum(processor.health()), scores: sum(svc.score.health()) }));
      ${ending}
    `;
  }

  /** What the log lines say was lost, per kind: dropped (first lines and summaries), and not delivered at exit. */
  function loggedLosses(stderr: string): { spans: number; scores: number } {
    const lost = { spans: 0, scores: 0 };
    for (const line of stderr.split("\n")) {
      const first = line.match(/ (spans|scores) dropped, [^:]+: (\d+) (?:spans?|scores?):/);
      const more = line.match(/ (spans|scores) dropped, [^:]+: (\d+) more (?:spans?|scores?) since the last message/);
      const match = first ?? more;
      if (match) lost[match[1] as "spans" | "scores"] += Number(match[2]);
      for (const [, count, kind] of line.matchAll(/(\d+) (span|score)s?(?= and| not delivered)/g))
        if (line.includes("the process is exiting with")) lost[`${kind}s` as "spans" | "scores"] += Number(count);
    }
    return lost;
  }

  for (const [how, ending] of [
    ["process.exit()", "process.exit(0);"],
    ["the end of the event loop", ""],
    ["shutdown()", "await Promise.all([svc.shutdown(), provider.shutdown()]);"],
  ] as const) {
    it(`logs them at ${how}, so that the log adds up to what was lost`, async () => {
      const server = await sink(() => new Promise<Reply>(() => {}));

      const result = await runChild(overflowing(ending), { env: { SVC_BASE_URL: server.url }, timeoutMs: 15_000 });

      const counted = JSON.parse(result.stdout.trim().split("\n")[0] as string) as { spans: number; scores: number };
      expect(counted).toEqual({ spans: 990, scores: 95 });
      expect(loggedLosses(result.stderr)).toEqual({ spans: 1000, scores: 100 });
    });
  }
});
