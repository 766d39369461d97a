import { createHash, randomBytes } from "node:crypto";
import { context, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type Sampler,
  SamplingDecision,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { attributesOf, exportedSpans } from "../support/otel.ts";
import { keptAtRate } from "../support/sampling.ts";

/** Trace ids that look random but are the same on every run. */
function traceIds(count: number, seed: string): string[] {
  return Array.from({ length: count }, (_, i) =>
    createHash("sha256").update(`${seed}-${i}`).digest("hex").slice(0, 32),
  );
}

/** A provider with one SvcSpanProcessor whose new traces take the given ids in turn. */
async function sampledSetup(
  ids: string[],
  params: SvcSpanProcessorParams,
  { env = {}, sampler }: { env?: Record<string, string>; sampler?: Sampler } = {},
) {
  const server = await startServer(() => ({ status: 200, json: {} }));
  onTestFinished(() => server.close());
  const processor = new SvcSpanProcessor(
    { baseUrl: server.url, publicKey: "pk", secretKey: "sk", flushAt: 10_000, ...params },
    env,
  );
  let next = 0;
  const provider = new BasicTracerProvider({
    spanProcessors: [processor as unknown as SpanProcessor],
    idGenerator: {
      generateTraceId: () => ids[next++ % ids.length]!,
      generateSpanId: () => randomBytes(8).toString("hex"),
    },
    ...(sampler ? { sampler } : {}),
  });
  onTestFinished(() => provider.shutdown());
  return { server, processor, provider, tracer: provider.getTracer("svc-sdk") };
}

/** Starts one trace per id: a root span with a child. */
function traceEach(tracer: ReturnType<BasicTracerProvider["getTracer"]>, count: number): void {
  for (let i = 0; i < count; i++) {
    const root = tracer.startSpan("root");
    tracer.startSpan("child", {}, trace.setSpan(context.active(), root)).end();
    root.end();
  }
}

function exportedTraceIds(server: TestServer): Set<string> {
  return new Set(exportedSpans(server).map((s) => s.traceId));
}

describe("SvcSpanProcessor sampleRate", () => {
  it("exports whole traces whose id the core sampler keeps, and counts the spans of the others", async () => {
    const ids = traceIds(200, "processor");
    const { server, processor, tracer } = await sampledSetup(ids, { sampleRate: 0.3 });

    traceEach(tracer, ids.length);
    await processor.forceFlush();

    const kept = ids.filter((id) => keptAtRate(id, 0.3));
    expect(exportedTraceIds(server)).toEqual(new Set(kept));
    expect(exportedSpans(server)).toHaveLength(2 * kept.length);
    expect(processor.health().dropped.sampledOut).toBe(2 * (ids.length - kept.length));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(ids.length);
  });

  it("marks the root of each kept trace as the app root and none of its children", async () => {
    const ids = traceIds(40, "app-root");
    const { server, processor, tracer } = await sampledSetup(ids, { sampleRate: 0.5 });

    traceEach(tracer, ids.length);
    await processor.forceFlush();

    const spans = exportedSpans(server);
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) {
      expect(attributesOf(span)[A.IS_APP_ROOT]).toBe(span.name === "root" ? true : undefined);
    }
  });

  it("neither stamps, filters nor masks a span of a trace it leaves out", async () => {
    const ids = traceIds(20, "untouched");
    const filtered: string[] = [];
    const masked: string[] = [];
    const { processor, provider } = await sampledSetup(ids, {
      sampleRate: 0.5,
      environment: "prod",
      shouldExportSpan: ({ otelSpan }) => {
        filtered.push(otelSpan.spanContext().traceId);
        return true;
      },
      mask: ({ data }) => {
        masked.push(String(data));
        return data;
      },
    });
    const tracer = provider.getTracer("svc-sdk");
    const spans = ids.map((id) => {
      const span = tracer.startSpan("s", { attributes: { [A.OBSERVATION_INPUT]: id } });
      span.end();
      return span as unknown as { attributes: Record<string, unknown>; spanContext(): { traceId: string } };
    });
    await processor.forceFlush();

    const left = spans.filter((s) => !keptAtRate(s.spanContext().traceId, 0.5));
    expect(left.length).toBeGreaterThan(0);
    for (const span of left) expect(span.attributes[A.ENVIRONMENT]).toBeUndefined();
    expect(new Set(filtered)).toEqual(new Set(ids.filter((id) => keptAtRate(id, 0.5))));
    expect(new Set(masked)).toEqual(new Set(ids.filter((id) => keptAtRate(id, 0.5))));
  });

  it("reads SVC_SAMPLE_RATE when the option is not given", async () => {
    const ids = traceIds(100, "env");
    const { server, processor, tracer } = await sampledSetup(ids, {}, { env: { SVC_SAMPLE_RATE: "0.2" } });

    traceEach(tracer, ids.length);
    await processor.forceFlush();

    expect(exportedTraceIds(server)).toEqual(new Set(ids.filter((id) => keptAtRate(id, 0.2))));
  });

  it("exports every trace at the default rate and counts nothing as sampled out", async () => {
    const ids = traceIds(30, "default");
    const { server, processor, tracer } = await sampledSetup(ids, {});

    traceEach(tracer, ids.length);
    await processor.forceFlush();

    expect(exportedTraceIds(server)).toEqual(new Set(ids));
    expect(processor.health().dropped.sampledOut).toBe(0);
  });
});

describe("SvcSpanProcessor under an OpenTelemetry sampler", () => {
  it("exports only the traces that both the provider's sampler and sampleRate keep", async () => {
    const ids = traceIds(400, "both");
    const sampler = new TraceIdRatioBasedSampler(0.5);
    const { server, processor, tracer } = await sampledSetup(ids, { sampleRate: 0.5 }, { sampler });

    traceEach(tracer, ids.length);
    await processor.forceFlush();

    const byProvider = new Set(
      ids.filter((id) => sampler.shouldSample(context.active(), id).decision === SamplingDecision.RECORD_AND_SAMPLED),
    );
    const both = ids.filter((id) => byProvider.has(id) && keptAtRate(id, 0.5));
    expect(exportedTraceIds(server)).toEqual(new Set(both));
    expect(both.length).toBeGreaterThan(0);
    expect(both.length).toBeLessThan(byProvider.size);
  });

  it("does not export a span the sampler records without sampling it, and counts it as sampled out", async () => {
    const recordOnly: Sampler = { shouldSample: () => ({ decision: SamplingDecision.RECORD }), toString: () => "rec" };
    const { server, processor, tracer } = await sampledSetup(traceIds(5, "record-only"), {}, { sampler: recordOnly });

    traceEach(tracer, 5);
    await processor.forceFlush();

    expect(exportedSpans(server)).toEqual([]);
    expect(processor.health().dropped.sampledOut).toBe(10);
  });
});
