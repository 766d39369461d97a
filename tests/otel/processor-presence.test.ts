import { trace } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
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
});
