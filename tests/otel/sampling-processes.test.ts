import { createHash } from "node:crypto";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { startServer, type TestServer } from "../support/http-server.ts";
import { exportedSpans } from "../support/otel.ts";
import { keptAtRate } from "../support/sampling.ts";

const TRACES = 2000;
const RATE = 0.25;
/**
 * Largest gap allowed between the share of traces kept and the rate: 2 percentage points, about two standard
 * deviations of the share of 2,000 independent draws at 25 % (0.97 points each). The ids are fixed, so the share is
 * too (24.85 %); the bound says how far from the rate a sampler that keeps its promise may land on 2,000 traces.
 */
const TOLERANCE = 0.02;

/**
 * A service that handles one request per trace id (ids derived from a shared seed, as if each request came in with
 * a `traceparent`): it records a span under the remote parent and a score on the trace, then one score without a
 * trace, and shuts down. It prints its sampled-out counts.
 */
function service(name: string, sampleRateOption: string): string {
  return `
    import { createHash, randomBytes } from "node:crypto";
    import { context, trace, TraceFlags } from "@opentelemetry/api";
    import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
    import { SvcClient } from "@svc/client";
    import { SvcSpanProcessor } from "@svc/otel";
    const keys = { publicKey: "pk-${name}", secretKey: "sk-${name}" ${sampleRateOption} };
    const processor = new SvcSpanProcessor(keys);
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const svc = new SvcClient({ ...keys, flushAt: 100 });
    const tracer = provider.getTracer("svc-sdk");
    for (let i = 0; i < ${TRACES}; i++) {
      const traceId = createHash("sha256").update("shared-" + i).digest("hex").slice(0, 32);
      const remote = { traceId, spanId: randomBytes(8).toString("hex"), traceFlags: TraceFlags.SAMPLED, isRemote: true };
      tracer.startSpan("${name}-handle", {}, trace.setSpanContext(context.active(), remote)).end();
      svc.score.create({ name: "${name}-score", value: 1, traceId });
    }
    svc.score.create({ name: "${name}-without-trace", value: 1, sessionId: "session-1" });
    await provider.shutdown();
    await svc.shutdown();
    console.log(JSON.stringify({
      spansSampledOut: processor.health().dropped.sampledOut,
      scoresSampledOut: svc.health().score.dropped.sampledOut,
    }));
  `;
}

function spanTraceIds(server: TestServer, name: string): string[] {
  return exportedSpans(server)
    .filter((s) => s.name === `${name}-handle`)
    .map((s) => s.traceId)
    .sort();
}

function scoreTraceIds(server: TestServer, name: string): (string | undefined)[] {
  return server.seen
    .filter((r) => r.path === "/api/public/scores")
    .flatMap((r) => r.json as { name: string; traceId?: string }[])
    .filter((s) => s.name.startsWith(`${name}-`))
    .map((s) => s.traceId)
    .sort();
}

describe("sampling across processes", () => {
  it("keeps the same traces and their scores in two services with the same rate, at the rate within 2 points", async () => {
    const server = await startServer(() => ({ status: 200, json: {} }));
    onTestFinished(() => server.close());

    // One service takes the rate as an option, the other from SVC_SAMPLE_RATE.
    const [frontend, backend] = await Promise.all([
      runChild(service("frontend", `, sampleRate: ${RATE}`), { env: { SVC_BASE_URL: server.url } }),
      runChild(service("backend", ""), { env: { SVC_BASE_URL: server.url, SVC_SAMPLE_RATE: String(RATE) } }),
    ]);

    expect([frontend.code, backend.code]).toEqual([0, 0]);
    const ids = Array.from({ length: TRACES }, (_, i) =>
      createHash("sha256").update(`shared-${i}`).digest("hex").slice(0, 32),
    );
    const expected = ids.filter((id) => keptAtRate(id, RATE)).sort();
    const kept = spanTraceIds(server, "frontend");
    expect(kept).toEqual(expected);
    expect(spanTraceIds(server, "backend")).toEqual(kept);
    expect(scoreTraceIds(server, "frontend")).toEqual([...kept, undefined]);
    expect(scoreTraceIds(server, "backend")).toEqual([...kept, undefined]);
    const left = TRACES - kept.length;
    for (const child of [frontend, backend]) {
      expect(JSON.parse(child.stdout)).toEqual({ spansSampledOut: left, scoresSampledOut: left });
    }
    expect(Math.abs(kept.length / TRACES - RATE)).toBeLessThanOrEqual(TOLERANCE);
  });
});
