import { trace } from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  FAILED_TO_SERIALIZE,
  SVC_TRACER_NAME,
  SvcAgent,
  SvcChain,
  SvcEmbedding,
  SvcEvaluator,
  SvcEvent,
  SvcGeneration,
  SvcGuardrail,
  type SvcObservationType,
  SvcRetriever,
  SvcSpan,
  SvcTool,
  startObservation,
} from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

const CLASS_BY_TYPE: Record<SvcObservationType, unknown> = {
  span: SvcSpan,
  generation: SvcGeneration,
  event: SvcEvent,
  agent: SvcAgent,
  tool: SvcTool,
  chain: SvcChain,
  retriever: SvcRetriever,
  evaluator: SvcEvaluator,
  guardrail: SvcGuardrail,
  embedding: SvcEmbedding,
};

describe("startObservation", () => {
  it.each(Object.keys(CLASS_BY_TYPE) as SvcObservationType[])(
    "creates a %s observation of its class with its type attribute",
    (type) => {
      const observation = startObservation(`obs-${type}`, { input: "in" }, { asType: type });
      observation.end();

      expect(observation).toBeInstanceOf(CLASS_BY_TYPE[type] as never);
      expect(observation.type).toBe(type);
      const span = otel.span(`obs-${type}`);
      expect(span.attributes[A.OBSERVATION_TYPE]).toBe(type);
      expect(span.attributes[A.OBSERVATION_INPUT]).toBe("in");
      expect(span.instrumentationScope.name).toBe(SVC_TRACER_NAME);
    },
  );

  it("defaults to a span when no type is given", () => {
    const observation = startObservation("plain");
    observation.end();

    expect(observation).toBeInstanceOf(SvcSpan);
    expect(otel.span("plain").attributes[A.OBSERVATION_TYPE]).toBe("span");
  });

  it("exposes the span id, trace id and OpenTelemetry span", () => {
    const observation = startObservation("ids");
    observation.end();

    const span = otel.span("ids");
    expect(observation.id).toBe(span.spanContext().spanId);
    expect(observation.traceId).toBe(span.spanContext().traceId);
    expect(observation.otelSpan.spanContext()).toEqual(span.spanContext());
  });

  it("writes the span attributes with svc keys", () => {
    startObservation("attrs", {
      input: { question: "why?" },
      output: "because",
      level: "WARNING",
      statusMessage: "slow",
      version: "1.2.3",
      environment: "staging",
    }).end();

    expect(otel.span("attrs").attributes).toMatchObject({
      [A.OBSERVATION_INPUT]: '{"question":"why?"}',
      [A.OBSERVATION_OUTPUT]: "because",
      [A.OBSERVATION_LEVEL]: "WARNING",
      [A.OBSERVATION_STATUS_MESSAGE]: "slow",
      [A.VERSION]: "1.2.3",
      [A.ENVIRONMENT]: "staging",
    });
  });

  it("writes the generation attributes with svc keys", () => {
    const completionStartTime = new Date("2026-01-02T03:04:05.678Z");
    startObservation(
      "llm",
      {
        model: "gpt-4o",
        modelParameters: { temperature: 0.2, max_tokens: 100 },
        usageDetails: { input: 10, output: 20, total: 30 },
        costDetails: { total: 0.002 },
        completionStartTime,
        prompt: { name: "qa", version: 3, isFallback: false },
      },
      { asType: "generation" },
    ).end();

    expect(otel.span("llm").attributes).toMatchObject({
      [A.OBSERVATION_MODEL]: "gpt-4o",
      [A.OBSERVATION_MODEL_PARAMETERS]: '{"temperature":0.2,"max_tokens":100}',
      [A.OBSERVATION_USAGE_DETAILS]: '{"input":10,"output":20,"total":30}',
      [A.OBSERVATION_COST_DETAILS]: '{"total":0.002}',
      [A.OBSERVATION_COMPLETION_START_TIME]: "2026-01-02T03:04:05.678Z",
      [A.OBSERVATION_PROMPT_NAME]: "qa",
      [A.OBSERVATION_PROMPT_VERSION]: 3,
    });
  });

  it("does not link a fallback prompt", () => {
    startObservation(
      "fallback",
      { prompt: { name: "qa", version: 1, isFallback: true } },
      { asType: "generation" },
    ).end();

    const attributes = otel.span("fallback").attributes;
    expect(attributes[A.OBSERVATION_PROMPT_NAME]).toBeUndefined();
    expect(attributes[A.OBSERVATION_PROMPT_VERSION]).toBeUndefined();
  });

  it("links a prompt by the rule of propagateAttributes: a digit string is a version, an invalid prompt is logged", () => {
    const logs = captureLogs();

    startObservation("digits", { prompt: { name: "qa", version: "7" as never } }, { asType: "generation" }).end();
    startObservation("no-name", { prompt: { name: "", version: 2 } }, { asType: "generation" }).end();
    startObservation("no-version", { prompt: { name: "qa", version: 2.5 } }, { asType: "generation" }).end();

    expect(otel.span("digits").attributes).toMatchObject({
      [A.OBSERVATION_PROMPT_NAME]: "qa",
      [A.OBSERVATION_PROMPT_VERSION]: 7,
    });
    for (const name of ["no-name", "no-version"]) {
      expect(otel.span(name).attributes[A.OBSERVATION_PROMPT_NAME], name).toBeUndefined();
      expect(otel.span(name).attributes[A.OBSERVATION_PROMPT_VERSION], name).toBeUndefined();
    }
    expect(logs.map((line) => line.message)).toEqual([
      "[Svc SDK] observation attributes: prompt dropped: name must be a non-empty string",
    ]);
  });

  it("names a prompt whose version is no integer by its name, quoted and cut to 80 characters", () => {
    const logs = captureLogs();
    const name = `${"q".repeat(79)}\nfake log line`;

    startObservation("bad-version", { prompt: { name, version: 1.5 } }, { asType: "generation" }).end();

    expect(logs.map((line) => line.message)).toEqual([
      `[Svc SDK] observation attributes: prompt dropped: version must be an integer (name="${"q".repeat(79)}\\n")`,
    ]);
  });

  it("ends an event at once, at its start time", () => {
    const at = new Date("2026-03-01T00:00:00.000Z");
    startObservation("happened", { input: "x" }, { asType: "event", startTime: at });

    const span = otel.span("happened");
    expect(span.attributes[A.OBSERVATION_TYPE]).toBe("event");
    expect(span.startTime).toEqual(span.endTime);
    expect(span.startTime).toEqual([Math.floor(at.getTime() / 1000), 0]);
  });

  it("uses the given start and end times", () => {
    const start = new Date("2026-03-01T00:00:00.000Z");
    const end = new Date("2026-03-01T00:00:02.500Z");
    startObservation("timed", {}, { startTime: start }).end(end);

    const span = otel.span("timed");
    expect(span.startTime).toEqual([1772323200, 0]);
    expect(span.endTime).toEqual([1772323202, 500_000_000]);
  });

  it("update() sets attributes later and returns the observation", () => {
    const generation = startObservation("later", {}, { asType: "generation" });
    const returned = generation.update({ output: { text: "hi" }, usageDetails: { output: 1 } });
    returned.end();

    expect(returned).toBe(generation);
    expect(otel.span("later").attributes).toMatchObject({
      [A.OBSERVATION_OUTPUT]: '{"text":"hi"}',
      [A.OBSERVATION_USAGE_DETAILS]: '{"output":1}',
    });
  });

  it("serializes input, output and metadata when they are set, so later changes to the objects are not recorded", () => {
    const input = { step: 1 };
    const output = { text: "first" };
    const metadata = { count: 1, nested: { on: true } };

    const observation = startObservation("snapshot", { input, metadata });
    observation.update({ output });
    input.step = 2;
    output.text = "changed";
    metadata.count = 2;
    metadata.nested.on = false;
    observation.end();

    expect(otel.span("snapshot").attributes).toMatchObject({
      [A.OBSERVATION_INPUT]: '{"step":1}',
      [A.OBSERVATION_OUTPUT]: '{"text":"first"}',
      [`${A.OBSERVATION_METADATA}.count`]: 1,
      [`${A.OBSERVATION_METADATA}.nested`]: '{"on":true}',
      [`${A.OBSERVATION_METADATA}.nested.on`]: true,
    });
  });

  it("starts children under the observation with startObservation()", () => {
    const root = startObservation("root");
    const child = root.startObservation("child", { input: 1 }, { asType: "tool" });
    const grandchild = child.startObservation("grandchild", { model: "m" }, { asType: "generation" });
    grandchild.end();
    child.end();
    root.end();

    expect(child).toBeInstanceOf(SvcTool);
    expect(grandchild).toBeInstanceOf(SvcGeneration);
    expect(parentId(otel.span("root"))).toBeUndefined();
    expect(parentId(otel.span("child"))).toBe(root.id);
    expect(parentId(otel.span("grandchild"))).toBe(child.id);
    expect(new Set(otel.spans().map((s) => s.spanContext().traceId))).toEqual(new Set([root.traceId]));
  });

  it("attaches to an explicit parent span context instead of the active span", () => {
    const chosen = startObservation("chosen");
    const other = startObservation("other");
    const child = trace.getTracer("test").startActiveSpan("active", (active) => {
      const created = startObservation("child", {}, { parentSpanContext: chosen.otelSpan.spanContext() });
      active.end();
      return created;
    });
    child.end();
    chosen.end();
    other.end();

    expect(parentId(otel.span("child"))).toBe(chosen.id);
    expect(child.traceId).toBe(chosen.traceId);
  });

  it("becomes a child of the active OpenTelemetry span when no parent is given", () => {
    trace.getTracer("app").startActiveSpan("app-span", (appSpan) => {
      startObservation("inside").end();
      appSpan.end();
    });

    expect(parentId(otel.span("inside"))).toBe(otel.span("app-span").spanContext().spanId);
  });

  it("setTraceAsPublic() marks the trace public", () => {
    const observation = startObservation("public");
    expect(observation.setTraceAsPublic()).toBe(observation);
    observation.end();

    expect(otel.span("public").attributes[A.TRACE_PUBLIC]).toBe(true);
  });

  it("ignores a second end()", () => {
    const observation = startObservation("twice");
    observation.end();
    observation.end();

    expect(otel.spans()).toHaveLength(1);
  });

  it("writes a field whose getter throws as the failure marker and keeps the rest of the attributes", () => {
    const logs = captureLogs();
    const hostile = {
      get input(): unknown {
        throw new Error("getter exploded");
      },
      output: "kept",
      model: "m-1",
    };

    const observation = startObservation("hostile", hostile as never, { asType: "generation" });
    observation.update(hostile as never).end();

    const attributes = otel.span("hostile").attributes;
    expect(attributes[A.OBSERVATION_TYPE]).toBe("generation");
    expect(attributes[A.OBSERVATION_INPUT]).toBe(FAILED_TO_SERIALIZE);
    expect(attributes[A.OBSERVATION_OUTPUT]).toBe("kept");
    expect(attributes[A.OBSERVATION_MODEL]).toBe("m-1");
    expect(logs.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
      "[Svc SDK] a value could not be read and was recorded as <failed to serialize>: getter exploded",
    ]);
  });

  it("falls back to a span and logs a warning for an unknown type", () => {
    const logs = captureLogs();

    const observation = startObservation("odd", {}, { asType: "widget" as SvcObservationType });
    observation.end();

    expect(observation).toBeInstanceOf(SvcSpan);
    expect(otel.span("odd").attributes[A.OBSERVATION_TYPE]).toBe("span");
    expect(logs.map((line) => line.message)).toEqual([
      '[Svc SDK] startObservation: unknown observation type widget; using span (name="odd")',
    ]);
  });
});
