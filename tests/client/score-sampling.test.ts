import { createHash } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { keptAtRate } from "../support/sampling.ts";
import { scoreSetup, sentScores } from "../support/scores.ts";

const ids = Array.from({ length: 100 }, (_, i) => createHash("sha256").update(`score-${i}`).digest("hex").slice(0, 32));

describe("SvcClient sampleRate", () => {
  it("sends the scores of the traces the span processor keeps at the same rate, and counts the others", async () => {
    const { server, svc } = await scoreSetup(undefined, { sampleRate: 0.4 });

    for (const traceId of ids) svc.score.create({ name: "quality", value: 1, traceId });
    await svc.flush();

    const kept = ids.filter((id) => keptAtRate(id, 0.4));
    expect(sentScores(server).map((s) => s.traceId)).toEqual(kept);
    expect(svc.health().score.dropped.sampledOut).toBe(ids.length - kept.length);
  });

  it("always sends a score without a trace", async () => {
    const { server, svc } = await scoreSetup(undefined, { sampleRate: 0 });

    svc.score.create({ name: "session-score", value: 1, sessionId: "s-1" });
    svc.score.create({ name: "run-score", value: 1, datasetRunId: "run-1" });
    svc.score.create({ name: "trace-score", value: 1, traceId: ids[0] });
    await svc.flush();

    expect(sentScores(server).map((s) => s.name)).toEqual(["session-score", "run-score"]);
    expect(svc.health().score.dropped.sampledOut).toBe(1);
  });

  it("decides by the trace of the span a score is attached to", async () => {
    const { server, svc } = await scoreSetup(undefined, { sampleRate: 0.5 });
    const spans = ids
      .slice(0, 20)
      .map((traceId) => trace.wrapSpanContext({ traceId, spanId: "b".repeat(16), traceFlags: 1 }));

    for (const otelSpan of spans) svc.score.observation({ otelSpan }, { name: "o", value: 1 });
    for (const otelSpan of spans) svc.score.trace({ otelSpan }, { name: "t", value: 1 });
    await svc.flush();

    const kept = ids.slice(0, 20).filter((id) => keptAtRate(id, 0.5));
    expect(
      sentScores(server)
        .filter((s) => s.name === "o")
        .map((s) => s.traceId),
    ).toEqual(kept);
    expect(
      sentScores(server)
        .filter((s) => s.name === "t")
        .map((s) => s.traceId),
    ).toEqual(kept);
  });

  it("reads SVC_SAMPLE_RATE, and logs nothing above debug for a score it leaves out", async () => {
    vi.stubEnv("SVC_SAMPLE_RATE", "0.1");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const logs = captureLogs();
    const { server, svc } = await scoreSetup();

    for (const traceId of ids) svc.score.create({ name: "quality", value: 1, traceId });
    await svc.flush();

    expect(sentScores(server).map((s) => s.traceId)).toEqual(ids.filter((id) => keptAtRate(id, 0.1)));
    expect(logs.filter((l) => l.level !== "debug" && l.level !== "info")).toEqual([]);
    expect(logs.some((l) => l.level === "debug" && l.message.includes("sampled out"))).toBe(true);
  });
});
