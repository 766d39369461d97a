import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import {
  SvcOtelSpanAttributes as A,
  createObservationAttributes,
  getSvcTracer,
  getSvcTracerProvider,
  SDK_VERSION,
  SVC_TRACER_NAME,
  setSvcTracerProvider,
  startActiveObservation,
  startObservation,
} from "@svc/tracing";
import { afterEach, describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { useInMemoryTracing } from "../support/tracing.ts";

const global = useInMemoryTracing();

afterEach(() => setSvcTracerProvider(null));

describe("svc tracer provider", () => {
  it("uses the global provider by default, with the svc-sdk scope and the SDK version", () => {
    startObservation("global").end();

    const span = global.span("global");
    expect(span.instrumentationScope).toMatchObject({ name: SVC_TRACER_NAME, version: SDK_VERSION });
    expect(getSvcTracerProvider()).toBe(trace.getTracerProvider());
  });

  it("sends svc spans to a provider of its own, apart from the application's global provider", () => {
    const own = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] });

    setSvcTracerProvider(provider);
    startObservation("isolated").end();
    trace.getTracer("app").startSpan("app-span").end();

    expect(getSvcTracerProvider()).toBe(provider);
    expect(own.getFinishedSpans().map((s) => s.name)).toEqual(["isolated"]);
    expect(global.spans().map((s) => s.name)).toEqual(["app-span"]);
  });

  it("goes back to the global provider after setSvcTracerProvider(null)", () => {
    const own = new InMemorySpanExporter();
    setSvcTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] }));
    const isolatedTracer = getSvcTracer();

    setSvcTracerProvider(null);
    startObservation("back").end();

    expect(getSvcTracer()).not.toBe(isolatedTracer);
    expect(own.getFinishedSpans()).toHaveLength(0);
    expect(global.span("back").attributes[A.OBSERVATION_TYPE]).toBe("span");
  });
});

describe("a failing tracer provider", () => {
  it("yields non-recording observations and one warning instead of an error", () => {
    const logs = captureLogs();
    setSvcTracerProvider({
      getTracer() {
        throw new Error("provider broken");
      },
    });

    const observation = startObservation("unrecorded");
    const result = startActiveObservation("unrecorded-active", () => "still runs");
    observation.update({ output: "x" }).end();

    expect(result).toBe("still runs");
    expect(observation.otelSpan.isRecording()).toBe(false);
    expect(global.spans()).toHaveLength(0);
    // The second failure of the same kind is counted, not logged again.
    expect(logs.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
      '[Svc SDK] startObservation: span not recorded: provider broken (name="unrecorded")',
    ]);
  });
});

describe("createObservationAttributes", () => {
  it("converts observation attributes into svc span attributes", () => {
    expect(
      createObservationAttributes("generation", {
        input: "q",
        model: "m",
        metadata: { a: 1 },
        level: "DEBUG",
        undefinedField: undefined,
      } as never),
    ).toEqual({
      [A.OBSERVATION_TYPE]: "generation",
      [A.OBSERVATION_INPUT]: "q",
      [A.OBSERVATION_MODEL]: "m",
      [`${A.OBSERVATION_METADATA}.a`]: 1,
      [A.OBSERVATION_LEVEL]: "DEBUG",
    });
  });
});
