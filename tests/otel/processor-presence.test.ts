import { trace } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  SimpleSpanProcessor,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { captureLogs } from "../support/logs.ts";

/** Makes svc start its spans with `provider` (or with the unset global one) for the current test. */
function useProvider(provider: BasicTracerProvider | null): void {
  trace.disable();
  setSvcTracerProvider(provider);
  onTestFinished(async () => {
    setSvcTracerProvider(null);
    await provider?.shutdown();
  });
}

function svcProcessor(): SvcSpanProcessor {
  return new SvcSpanProcessor({ exporter: new InMemorySpanExporter() }, {});
}

const warnings = (logs: { level: string; message: string }[]) => logs.filter((l) => l.level === "warn");

describe("observations that no SvcSpanProcessor sees", () => {
  it("log one warning, with the fix, when no tracer provider is registered", () => {
    useProvider(null);
    const logs = captureLogs();

    startObservation("first").end();
    startObservation("second").end();

    expect(warnings(logs)).toHaveLength(1);
    expect(warnings(logs)[0]?.message).toContain(
      'observation "first" was started while no OpenTelemetry tracer provider is registered',
    );
    expect(warnings(logs)[0]?.message).toContain("new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] }).start()");
  });

  it("log one warning when the provider that records them has no SvcSpanProcessor", () => {
    useProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }));
    const logs = captureLogs();

    startObservation("first").end();
    startObservation("second", {}, { asType: "generation" }).end();

    expect(warnings(logs).map((l) => l.message)).toEqual([
      expect.stringContaining('observation "first" was recorded by a tracer provider without SvcSpanProcessor'),
    ]);
  });

  it("advise adding the processor to the registered provider, not starting NodeSDK, when a provider is registered", () => {
    useProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }));
    const logs = captureLogs();

    startObservation("first").end();

    const [warning] = warnings(logs).map((l) => l.message);
    expect(warning).not.toContain("NodeSDK(");
    expect(warning).toContain("A tracer provider is already registered");
    expect(warning).toContain("add new SvcSpanProcessor() to the span processors of that provider");
    expect(warning).toContain(
      "setSvcTracerProvider(new NodeTracerProvider({ spanProcessors: [new SvcSpanProcessor()] }))",
    );
  });

  it("log nothing when the provider has a SvcSpanProcessor", () => {
    useProvider(new BasicTracerProvider({ spanProcessors: [svcProcessor()] }));
    const logs = captureLogs();

    startObservation("first").end();

    expect(warnings(logs)).toEqual([]);
  });

  it("log nothing when a sampler of a provider with a SvcSpanProcessor leaves them unrecorded", () => {
    useProvider(new BasicTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [svcProcessor()] }));
    const logs = captureLogs();

    startObservation("sampled-out").end();

    expect(warnings(logs)).toEqual([]);
  });

  it("log nothing, and export no probe, when a parent-based sampler of a provider with a SvcSpanProcessor samples them out", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SvcSpanProcessor({ exporter }, {});
    useProvider(
      new BasicTracerProvider({
        sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
        spanProcessors: [processor],
      }),
    );
    const logs = captureLogs();

    startObservation("sampled-out").end();
    startObservation("sampled-out-too").end();
    await processor.forceFlush();

    expect(warnings(logs)).toEqual([]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

/** Records without sampling: the span is recording, its trace flags say not sampled. */
const RECORD_ONLY: Sampler = {
  shouldSample: () => ({ decision: SamplingDecision.RECORD }),
  toString: () => "RecordOnly",
};

describe.each([
  { sampler: "records and samples them", make: () => new AlwaysOnSampler() },
  { sampler: "records them without sampling", make: () => RECORD_ONLY },
])("observations of a provider without SvcSpanProcessor whose sampler $sampler", ({ make }) => {
  it("log one warning while another provider has the processor", () => {
    // The other provider, with the processor, is the one the application meant for svc (as NodeSDK next to Sentry).
    const other = new BasicTracerProvider({ spanProcessors: [svcProcessor()] });
    onTestFinished(() => other.shutdown());
    const exporter = new InMemorySpanExporter();
    useProvider(new BasicTracerProvider({ sampler: make(), spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const logs = captureLogs();

    startObservation("first").end();
    startObservation("second").end();

    expect(warnings(logs).map((l) => l.message)).toEqual([
      expect.stringMatching(/observation "first" was (recorded|started) by a tracer provider without SvcSpanProcessor/),
    ]);
    expect(exporter.getFinishedSpans().map((span) => span.name)).not.toContain("svc processor probe");
  });
});

/** Counts the span starts and ends a processor of the application is told of. */
function countingProcessor() {
  const counts = { starts: 0, ends: 0 };
  const processor: SpanProcessor = {
    onStart: () => void counts.starts++,
    onEnd: () => void counts.ends++,
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  return { processor, counts };
}

describe("the probe of a provider whose parent-based sampler samples observations out", () => {
  it("is ended, so the application's processors see an end for each start, and the warning is logged once", () => {
    const other = new BasicTracerProvider({ spanProcessors: [svcProcessor()] });
    onTestFinished(() => other.shutdown());
    const { processor, counts } = countingProcessor();
    const exporter = new InMemorySpanExporter();
    useProvider(
      new BasicTracerProvider({
        sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
        spanProcessors: [processor, new SimpleSpanProcessor(exporter)],
      }),
    );
    const logs = captureLogs();

    for (let i = 0; i < 10; i++) startObservation(`sampled-out-${i}`).end();

    expect(counts).toEqual({ starts: 1, ends: 1 });
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(["svc processor probe"]);
    expect(warnings(logs).map((l) => l.message)).toEqual([
      expect.stringContaining('observation "sampled-out-0" was started by a tracer provider without SvcSpanProcessor'),
    ]);
  });

  it("is ended and not exported by the SvcSpanProcessor of that provider", async () => {
    const svcExporter = new InMemorySpanExporter();
    const svc = new SvcSpanProcessor({ exporter: svcExporter }, {});
    const { processor, counts } = countingProcessor();
    useProvider(
      new BasicTracerProvider({
        sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
        spanProcessors: [processor, svc],
      }),
    );
    const logs = captureLogs();

    for (let i = 0; i < 10; i++) startObservation(`sampled-out-${i}`).end();
    await svc.forceFlush();

    expect(counts).toEqual({ starts: 1, ends: 1 });
    expect(svcExporter.getFinishedSpans()).toEqual([]);
    expect(svc.health().dropped).toEqual(expect.objectContaining({ sampledOut: 0 }));
    expect(warnings(logs)).toEqual([]);
  });
});
