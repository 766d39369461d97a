import { context, INVALID_SPAN_CONTEXT, trace as otelTrace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { ScoreBody } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { LogLevel, setSvcTracerProvider, startObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans } from "../support/otel.ts";
import { type SentScore, scoreRequests, scoreSetup, sentScores } from "../support/scores.ts";

const setup = scoreSetup;

describe("ScoreManager batching", () => {
  it("sends 250 scores in 3 requests of at most 100, 250 in all", async () => {
    const { server, svc } = await scoreSetup();
    for (let i = 0; i < 250; i++) svc.score.create({ name: "accuracy", value: i, traceId: "t-1" });
    await svc.flush();

    const sizes = scoreRequests(server).map((r) => (r.json as SentScore[]).length);
    expect(sizes).toHaveLength(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(250);
    expect(new Set(sentScores(server).map((s) => s.value)).size).toBe(250);
  });

  it("sends a JSON array with the score's fields, a UUID v4 id and the environment from SVC_TRACING_ENVIRONMENT", async () => {
    vi.stubEnv("SVC_TRACING_ENVIRONMENT", "staging");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const { server, svc } = await scoreSetup();
    svc.score.create({ name: "accuracy", value: 0.9, traceId: "t-1", comment: "ok", metadata: { a: 1 } });
    svc.score.create({ id: "my-id", name: "label", value: "good", environment: "prod" });
    await svc.flush();

    const [first, second] = sentScores(server);
    expect(first).toMatchObject({ name: "accuracy", value: 0.9, traceId: "t-1", comment: "ok", metadata: { a: 1 } });
    expect(first?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first?.environment).toBe("staging");
    expect(second).toMatchObject({ id: "my-id", name: "label", value: "good", environment: "prod" });
    expect(scoreRequests(server)[0]?.headers.authorization).toBe(`Basic ${btoa("pk:sk")}`);
  });

  it("stamps each score with the time it was queued, not the time it was sent", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { server, svc } = await scoreSetup(undefined, { flushAt: 1000 });
    vi.setSystemTime(new Date("2026-01-01T10:00:00.000Z"));
    svc.score.create({ name: "a", value: 1 });
    vi.setSystemTime(new Date("2026-01-01T10:00:05.000Z"));
    svc.score.create({ name: "b", value: 2 });
    vi.setSystemTime(new Date("2026-01-01T11:00:00.000Z"));
    await svc.flush();

    expect(sentScores(server).map((s) => s.timestamp)).toEqual([
      "2026-01-01T10:00:00.000Z",
      "2026-01-01T10:00:05.000Z",
    ]);
  });

  it("sends once flushAt scores are queued, without an explicit flush", async () => {
    const { server, svc } = await scoreSetup(undefined, { flushAt: 3, flushInterval: 3600 });
    for (let i = 0; i < 3; i++) svc.score.create({ name: "n", value: i });
    await vi.waitFor(() => expect(scoreRequests(server)).toHaveLength(1), { timeout: 2000, interval: 5 });
    expect(sentScores(server)).toHaveLength(3);
  });

  it("sends after the flush interval when fewer than flushAt scores are queued", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { server, svc } = await scoreSetup(undefined, { flushAt: 50, flushInterval: 2 });
    svc.score.create({ name: "n", value: 1 });
    await vi.advanceTimersByTimeAsync(1900);
    expect(scoreRequests(server)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    vi.useRealTimers();
    await vi.waitFor(() => expect(scoreRequests(server)).toHaveLength(1), { timeout: 2000, interval: 5 });
  });

  it("reads flushAt from SVC_FLUSH_AT when the option is absent", async () => {
    vi.stubEnv("SVC_FLUSH_AT", "2");
    vi.stubEnv("SVC_FLUSH_INTERVAL", "3600");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const { server, svc } = await scoreSetup();
    svc.score.create({ name: "n", value: 1 });
    svc.score.create({ name: "n", value: 2 });
    await vi.waitFor(() => expect(scoreRequests(server)).toHaveLength(1), { timeout: 2000, interval: 5 });
  });
});

describe("ScoreManager with the previous major's types", () => {
  it("takes a ScoreBody (metadata of any JSON type) in create() and in observation()", async () => {
    const { server, svc } = await scoreSetup();
    const body: ScoreBody = { name: "helpful", value: 1, traceId: "t-1", metadata: ["a", "b"] };
    svc.score.create(body);
    const tracer = new BasicTracerProvider().getTracer("t");
    const span = tracer.startSpan("s");
    const forSpan: Omit<ScoreBody, "traceId" | "observationId"> = { name: "tone", value: "calm", metadata: "plain" };
    svc.score.observation({ otelSpan: span }, forSpan);
    span.end();
    await svc.flush();

    expect(sentScores(server)).toMatchObject([
      { name: "helpful", value: 1, traceId: "t-1", metadata: ["a", "b"] },
      { name: "tone", value: "calm", metadata: "plain", observationId: span.spanContext().spanId },
    ]);
  });
});

describe("ScoreManager targets", () => {
  it("takes the trace and observation ids from the span for observation() and the trace id for trace()", async () => {
    const { server, svc } = await scoreSetup();
    const span = new BasicTracerProvider().getTracer("t").startSpan("s");
    const { traceId, spanId } = span.spanContext();
    svc.score.observation({ otelSpan: span }, { name: "obs", value: 1 });
    svc.score.trace({ otelSpan: span }, { name: "tr", value: 2 });
    await svc.flush();

    const [obs, tr] = sentScores(server);
    expect(obs).toMatchObject({ name: "obs", traceId, observationId: spanId });
    expect(tr).toMatchObject({ name: "tr", traceId });
    expect(tr).not.toHaveProperty("observationId");
  });

  it("accepts an observation from @svc/tracing as the target", async () => {
    const { server, svc } = await scoreSetup();
    setSvcTracerProvider(new BasicTracerProvider());
    onTestFinished(() => setSvcTracerProvider(null));
    const observation = startObservation("answer");
    svc.score.observation(observation, { name: "relevance", value: 1 });
    svc.score.trace(observation, { name: "overall", value: 0.5 });
    observation.end();
    await svc.flush();

    expect(sentScores(server)).toEqual([
      expect.objectContaining({ traceId: observation.traceId, observationId: observation.id }),
      expect.objectContaining({ traceId: observation.traceId, name: "overall" }),
    ]);
  });

  it("scores the active span with activeObservation() and activeTrace()", async () => {
    const { server, svc } = await scoreSetup();
    const provider = new NodeTracerProvider();
    provider.register();
    onTestFinished(() => {
      otelTrace.disable();
      context.disable();
    });
    const span = otelTrace.getTracer("t").startActiveSpan("s", (active) => {
      svc.score.activeObservation({ name: "obs", value: 1 });
      svc.score.activeTrace({ name: "tr", value: 2 });
      return active;
    });
    await svc.flush();

    const { traceId, spanId } = span.spanContext();
    expect(sentScores(server)).toEqual([
      expect.objectContaining({ name: "obs", traceId, observationId: spanId }),
      expect.objectContaining({ name: "tr", traceId }),
    ]);
  });

  it("drops an active-span score with a warning when no span is active", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup();
    svc.score.activeTrace({ name: "tr", value: 2 });
    await svc.flush();
    expect(scoreRequests(server)).toHaveLength(0);
    expect(logs).toContainEqual({ level: "warn", message: expect.stringContaining("no active span") });
  });
});

describe("ScoreManager environment", () => {
  /** A span processor and a client made now, reading process.env as each does by default, on one sink. */
  async function processorAndClient() {
    const { server, svc } = await setup();
    const processor = new SvcSpanProcessor({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    onTestFinished(() => provider.shutdown());
    return { server, svc, processor, tracer: provider.getTracer("svc-sdk") };
  }

  async function scoreAndTrace() {
    const { server, svc, processor, tracer } = await processorAndClient();
    vi.stubEnv("SVC_TRACING_ENVIRONMENT", "changed-later");
    const span = tracer.startSpan("answer");
    svc.score.trace({ otelSpan: span }, { name: "quality", value: 1 });
    span.end();
    await Promise.all([processor.forceFlush(), svc.flush()]);
    const [exported] = exportedSpans(server);
    const spanEnvironment = exported ? attributesOf(exported)["svc.environment"] : "no span";
    return { spanEnvironment, scoreEnvironment: sentScores(server)[0]?.environment };
  }

  it("reads SVC_TRACING_ENVIRONMENT when the client is made, as the span processor does: score and trace agree", async () => {
    vi.stubEnv("SVC_TRACING_ENVIRONMENT", "staging");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });

    const { spanEnvironment, scoreEnvironment } = await scoreAndTrace();

    expect(spanEnvironment).toBe("staging");
    expect(scoreEnvironment).toBe("staging");
  });

  it("ignores an SVC_TRACING_ENVIRONMENT that breaks the environment rule, as the span processor does", async () => {
    const logs = captureLogs();
    vi.stubEnv("SVC_TRACING_ENVIRONMENT", "Production");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });

    const { spanEnvironment, scoreEnvironment } = await scoreAndTrace();

    expect(spanEnvironment).toBeUndefined();
    expect(scoreEnvironment).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringMatching(/^\[Svc SDK\] SvcClient: ignoring SVC_TRACING_ENVIRONMENT="Production"/),
      expect.stringMatching(/^\[Svc SDK\] SvcSpanProcessor: ignoring SVC_TRACING_ENVIRONMENT="Production"/),
    ]);
  });

  it("ignores an environment option that breaks the rule and falls back to SVC_TRACING_ENVIRONMENT", async () => {
    captureLogs();
    vi.stubEnv("SVC_TRACING_ENVIRONMENT", "staging");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const { server, svc } = await setup(undefined, { environment: "Prod Env" });
    svc.score.create({ name: "n", value: 1 });
    await svc.flush();

    expect(sentScores(server)[0]?.environment).toBe("staging");
  });
});

describe("ScoreManager scores that would attach to no trace", () => {
  it("drops a score for a span that no tracer provider records (trace id all zeros) with one warning", async () => {
    const logs = captureLogs();
    const { server, svc } = await setup();
    const unrecorded = otelTrace.wrapSpanContext(INVALID_SPAN_CONTEXT);

    svc.score.trace({ otelSpan: unrecorded }, { name: "helpfulness", value: 1 });
    svc.score.observation({ otelSpan: unrecorded }, { name: "helpfulness", value: 1 });
    await svc.shutdown();

    expect(scoreRequests(server)).toHaveLength(0);
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining(
        'ScoreManager: score dropped: traceId 00000000000000000000000000000000 is all zeros, the id of a span no tracer provider records, so the score would attach to no trace (name="helpfulness")',
      ),
      "[Svc SDK] ScoreManager: score dropped: all-zero trace id: happened 1 more time(s) since the last message",
    ]);
  });

  it("drops a score whose traceId is empty with a warning, sends a non-string one as its text, and sends the others", async () => {
    const logs = captureLogs();
    const { server, svc } = await setup();

    svc.score.create({ name: "empty", value: 1, traceId: "" });
    svc.score.create({ name: "number", value: 1, traceId: 42 as never });
    svc.score.create({ name: "kept", value: 1, traceId: "trace-1" });
    svc.score.create({ name: "no-trace", value: 1, sessionId: "session-1" });
    await svc.flush();

    expect(sentScores(server).map((s) => [s.name, s.traceId])).toEqual([
      ["number", "42"],
      ["kept", "trace-1"],
      ["no-trace", undefined],
    ]);
    expect(logs).toContainEqual({
      level: "warn",
      message: '[Svc SDK] ScoreManager: score dropped: traceId must be a non-empty string, got "" (name="empty")',
    });
  });

  it("neither queues nor sends scores under OTEL_SDK_DISABLED=true, and says so in one debug line", async () => {
    vi.stubEnv("OTEL_SDK_DISABLED", "TRUE");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const logs = captureLogs();
    const { server, svc } = await setup();

    svc.score.create({ name: "accuracy", value: 1, traceId: "trace-1" });
    svc.score.create({ name: "accuracy", value: 2, traceId: "trace-1" });
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(0);
    expect(svc.health().score.queued).toBe(0);
    expect(logs.filter((l) => l.message.includes("ScoreManager"))).toEqual([
      {
        level: "debug",
        message: "[Svc SDK] ScoreManager: OTEL_SDK_DISABLED=true, so scores are neither queued nor sent",
      },
    ]);
  });
});

describe("ScoreManager validation", () => {
  it("drops a score with an empty name and logs one error", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup();
    svc.score.create({ name: "", value: 1 });
    svc.score.create({ name: "ok", value: 1 });
    await svc.flush();

    expect(sentScores(server).map((s) => s.name)).toEqual(["ok"]);
    expect(logs.filter((l) => l.level === "error")).toEqual([
      { level: "error", message: expect.stringContaining("name must be a non-empty string") },
    ]);
  });

  it("logs 1,000 invalid scores with one error line at once and their count on shutdown", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const { server, svc } = await scoreSetup();

    for (let i = 0; i < 1_000; i++) svc.score.create({ name: "", value: i });
    expect(logs).toEqual([
      { level: "error", message: "[Svc SDK] ScoreManager: score dropped: name must be a non-empty string" },
    ]);
    await svc.flush();
    expect(logs).toHaveLength(1); // a flush right after the first line adds no line of its own
    await svc.shutdown();

    expect(scoreRequests(server)).toHaveLength(0);
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] ScoreManager: score dropped: name must be a non-empty string",
      "[Svc SDK] ScoreManager: score dropped: empty name: happened 999 more time(s) since the last message",
    ]);
  });

  it("logs the first invalid score of each cause in full", async () => {
    const logs = captureLogs();
    const { svc } = await scoreSetup();

    svc.score.create({ name: "a", value: Number.NaN });
    svc.score.create({ name: "b", value: true as never });
    svc.score.create({ name: "", value: 1 });
    await svc.shutdown();

    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      '[Svc SDK] ScoreManager: score dropped: value must be a finite number or a string (name="a")',
      "[Svc SDK] ScoreManager: score dropped: name must be a non-empty string",
      "[Svc SDK] ScoreManager: score dropped: invalid value: happened 1 more time(s) since the last message",
    ]);
  });

  it.each([
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a boolean", true],
    ["null", null],
    ["an object", { v: 1 }],
    ["undefined", undefined],
  ])("drops a score whose value is %s and logs an error", async (_label, value) => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup();
    svc.score.create({ name: "bad", value: value as number });
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(0);
    expect(logs).toContainEqual({
      level: "error",
      message: expect.stringContaining("value must be a finite number or a string"),
    });
  });

  it("never throws whatever it is given, and sends every score whose name and value are valid", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup();
    const cyclic: Record<string, unknown> = { name: "cyclic", value: 1 };
    cyclic.self = cyclic;
    const throwing = Object.defineProperty({ value: 1 }, "name", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    const hostile: unknown[] = [
      undefined,
      null,
      42,
      "score",
      [],
      cyclic,
      throwing,
      { name: "big", value: 1, metadata: { n: 10n } },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("proxy");
          },
          ownKeys: () => {
            throw new Error("keys");
          },
        },
      ),
      { name: Symbol("s"), value: 1 },
    ];
    const span = {
      spanContext: () => {
        throw new Error("span");
      },
    };
    for (const input of hostile) {
      expect(() => svc.score.create(input as never)).not.toThrow();
      expect(() => svc.score.observation({ otelSpan: span } as never, input as never)).not.toThrow();
      expect(() => svc.score.trace(undefined as never, input as never)).not.toThrow();
      expect(() => svc.score.activeObservation(input as never)).not.toThrow();
    }
    svc.score.create({ name: "valid", value: "yes" });
    await expect(svc.flush()).resolves.toBeUndefined();
    await svc.shutdown();

    expect(sentScores(server).map((s) => s.name)).toEqual(["cyclic", "big", "valid"]);
    expect(sentScores(server)[0]?.self).toBe("[Circular]");
    expect(sentScores(server)[1]?.metadata).toEqual({ n: "10" });
    // One line per cause; repeats of a cause are counted in a summary at shutdown.
    const errors = logs.filter((l) => l.level === "error").map((l) => l.message);
    for (const cause of [
      "score dropped: a score must be an object",
      "score dropped: its name or value cannot be read: boom",
      "score dropped: name must be a non-empty string",
      "observation: score dropped: span",
      "trace: score dropped:",
    ]) {
      expect(errors.filter((m) => m.includes(cause) && !m.includes("more time(s)"))).toHaveLength(1);
    }
    expect(errors).toContainEqual(expect.stringMatching(/observation: score dropped: happened 9 more time\(s\)/));
  });

  it("sends the score as it was when queued, not as later changed by the caller", async () => {
    const { server, svc } = await scoreSetup();
    const score = { name: "n", value: 1, metadata: { step: 1 } };
    svc.score.create(score);
    score.metadata.step = 2;
    await svc.flush();
    expect(sentScores(server)[0]?.metadata).toEqual({ step: 1 });
  });

  it("sends a flat score as it was when queued, not as later changed at the top level by the caller", async () => {
    const { server, svc } = await scoreSetup();
    const score: { name: string; value: number; comment?: string } = { name: "n", value: 1, comment: "a" };
    svc.score.create(score);
    score.value = 2;
    score.comment = "b";
    await svc.flush();
    expect(sentScores(server)[0]).toMatchObject({ name: "n", value: 1, comment: "a" });
  });

  it("sends a flat score with undefined and non-finite fields as its JSON form (absent and null)", async () => {
    const { server, svc } = await scoreSetup();
    svc.score.create({ name: "n", value: 1, comment: undefined, extra: Number.NaN, flag: true } as never);
    await svc.flush();
    const sent = sentScores(server)[0] ?? {};
    expect("comment" in sent).toBe(false);
    expect(sent.extra).toBeNull();
    expect(sent.flag).toBe(true);
  });
});

describe("ScoreManager server answers", () => {
  it("logs a 207 partial rejection as 'Svc rejected N of M scores in batch:' with the server's errors, without retrying", async () => {
    const logs = captureLogs();
    const errors = [{ index: 1, message: "value must be 0 or 1" }];
    const { server, svc } = await scoreSetup(() => ({ status: 207, json: { accepted: 2, rejected: 1, errors } }));
    for (let i = 0; i < 3; i++) svc.score.create({ name: "n", value: i });
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(1);
    const line = logs.find((l) => l.message.includes("rejected"));
    expect(line?.level).toBe("error");
    expect(line?.message).toBe(`[Svc SDK] Svc rejected 1 of 3 scores in batch: ${JSON.stringify(errors)}`);
  });

  it("logs no rejection when the server reports rejected: 0", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup(() => ({ status: 200, json: { accepted: 2, rejected: 0, errors: [] } }));
    svc.score.create({ name: "a", value: 1 });
    svc.score.create({ name: "b", value: 2 });
    await svc.flush();

    expect(scoreRequests(server)).toHaveLength(1);
    expect(logs.filter((l) => l.level === "error")).toEqual([]);
  });

  it("retries the whole batch after a 503 and a 429, then succeeds", async () => {
    const logs = captureLogs();
    const statuses = [503, 429, 200];
    const { server, svc } = await scoreSetup(() => ({
      status: statuses.shift() ?? 200,
      json: {},
      headers: { "retry-after": "0" },
    }));
    svc.score.create({ name: "a", value: 1 });
    svc.score.create({ name: "b", value: 2 });
    await svc.flush();

    const requests = scoreRequests(server);
    expect(requests).toHaveLength(3);
    for (const r of requests) expect((r.json as SentScore[]).map((s) => s.name)).toEqual(["a", "b"]);
    expect(logs.filter((l) => l.level === "error")).toEqual([]);
  });

  it("retries a dropped connection", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    let calls = 0;
    const { server, svc } = await scoreSetup(() => (++calls === 1 ? { destroy: true } : { status: 200, json: {} }));
    svc.score.create({ name: "a", value: 1 });
    const flushed = svc.flush();
    await vi.waitFor(
      async () => {
        await vi.advanceTimersByTimeAsync(250);
        expect(scoreRequests(server)).toHaveLength(2);
      },
      { timeout: 2000, interval: 5 },
    );
    await flushed;
    expect(sentScores(server).map((s) => s.name)).toEqual(["a", "a"]);
  });

  it("keeps failed scores queued through an outage, and drops them with a count when shutdown's deadline passes", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup(() => ({ status: 503, json: {}, headers: { "retry-after": "0" } }), {
      flushTimeout: 0.3,
    });
    for (let i = 0; i < 4; i++) svc.score.create({ name: "n", value: i });

    await svc.flush();
    const held = svc.health().score;
    expect(held.queued + held.inFlight).toBe(4);
    expect(held.sent).toBe(0);
    await svc.shutdown();

    expect(scoreRequests(server).length).toBeGreaterThan(1);
    expect(svc.health().score).toMatchObject({ queued: 0, dropped: { shutdown: 4 } });
    const messages = logs.map((l) => l.message);
    expect(messages).toContainEqual(
      expect.stringMatching(/cannot deliver scores: HTTP 503 from 127\.0\.0\.1:\d+ POST \/api\/public\/scores/),
    );
    expect(messages).toContainEqual(
      expect.stringContaining("flush() gave up after 0.3 s with 4 scores not yet delivered"),
    );
    expect(messages).toContainEqual(expect.stringMatching(/scores dropped, not delivered before shutdown: 4 scores/));
  });

  it("delivers scores held through a short outage once the server answers again, and says so", async () => {
    const logs = captureLogs();
    let calls = 0;
    const { server, svc } = await scoreSetup(() =>
      ++calls <= 2 ? { status: 503, json: {}, headers: { "retry-after": "0" } } : { status: 200, json: {} },
    );
    for (let i = 0; i < 3; i++) svc.score.create({ name: "n", value: i });

    await svc.flush();

    expect(
      sentScores(server)
        .slice(-3)
        .map((s) => s.value),
    ).toEqual([0, 1, 2]);
    expect(svc.health().score).toMatchObject({ sent: 3, retries: 2, dropped: { queueFull: 0 } });
    expect(logs.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/ScoreManager: delivery recovered after \d+ s: 3 scores delivered late, 0 lost/),
    );
  });

  it("does not retry a 400 and logs the scores as lost", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup(() => ({ status: 400, json: { message: "bad" } }));
    svc.score.create({ name: "n", value: 1 });
    await svc.flush();
    expect(scoreRequests(server)).toHaveLength(1);
    expect(logs).toContainEqual({
      level: "error",
      message: expect.stringMatching(
        /scores dropped, rejected by the server: 1 score: HTTP 400 from 127\.0\.0\.1:\d+ POST \/api\/public\/scores: \{"message":"bad"\}/,
      ),
    });
  });
});

describe("ScoreManager flush", () => {
  it("waits for scores queued while another flush is in flight", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { server, svc } = await scoreSetup(async () => {
      await gate;
      return { status: 200, json: {} };
    });
    svc.score.create({ name: "first", value: 1 });
    const firstFlush = svc.flush();
    await vi.waitFor(() => expect(scoreRequests(server)).toHaveLength(1), { timeout: 2000, interval: 5 });
    svc.score.create({ name: "second", value: 2 });
    let secondDone = false;
    const secondFlush = svc.flush().then(() => {
      secondDone = true;
    });
    await vi.waitFor(() => expect(scoreRequests(server)).toHaveLength(2), { timeout: 2000, interval: 5 });
    expect(secondDone).toBe(false);
    release();
    await Promise.all([firstFlush, secondFlush]);

    expect(secondDone).toBe(true);
    expect(sentScores(server).map((s) => s.name)).toEqual(["first", "second"]);
  });

  it("resolves flush() only after the batches it started have been answered", async () => {
    const { server, svc } = await scoreSetup(() => ({ status: 200, json: {}, delayMs: 30 }));
    svc.score.create({ name: "n", value: 1 });
    let answered = false;
    server.reply(async () => {
      await new Promise((r) => setTimeout(r, 30));
      answered = true;
      return { status: 200, json: {} };
    });
    await svc.flush();
    expect(answered).toBe(true);
  });

  it("drops scores beyond the queue cap, logs the first drop, and the count of the others on shutdown", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup(undefined, { scoreMaxQueueSize: 5, flushAt: 1000 });
    for (let i = 0; i < 8; i++) svc.score.create({ name: "n", value: i });
    await svc.shutdown();

    expect(sentScores(server).map((s) => s.value)).toEqual([0, 1, 2, 3, 4]);
    const errors = logs.filter((l) => l.level === "error").map((l) => l.message);
    expect(errors).toEqual([
      expect.stringMatching(
        /^\[Svc SDK\] ScoreManager: scores dropped, the queue is full: 1 score: 5 scores \(\d+ KiB\) held, limits 5 scores/,
      ),
      "[Svc SDK] ScoreManager: scores dropped, the queue is full: 2 more scores since the last message (3 in total)",
    ]);
  });

  it("sends the queue on shutdown", async () => {
    const { server, svc } = await scoreSetup(undefined, { flushAt: 1000, flushInterval: 3600 });
    svc.score.create({ name: "n", value: 1 });
    await svc.shutdown();
    expect(sentScores(server)).toHaveLength(1);
  });
});
