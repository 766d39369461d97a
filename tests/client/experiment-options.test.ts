import { AlwaysOffSampler, BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createEvaluatorFromAutoevals, type ExperimentResult, RegressionError, RunnerContext } from "@svc/client";
import { SvcOtelSpanAttributes as A, setSvcTracerProvider } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import {
  answer,
  capitals,
  concurrencyProbe,
  rootSpans,
  sentScores,
  setup,
  useExperimentTracing,
} from "../support/experiment.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf } from "../support/otel.ts";

useExperimentTracing();

describe("flushing", () => {
  it("has exported every span and sent every score when run resolves, however long the batch interval", async () => {
    const { server, svc } = await setup({ flushAt: 1000, flushInterval: 3600 });
    svc.score.create({ name: "queued-before", value: 1, traceId: "t-0" });

    await svc.experiment.run({
      name: "capitals",
      data: capitals,
      task: answer,
      evaluators: [() => ({ name: "seen", value: 1 })],
    });

    expect(rootSpans(server)).toHaveLength(2);
    expect(
      sentScores(server)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["queued-before", "seen", "seen"]);
  });

  it("resolves when the span provider has no forceFlush", async () => {
    const { svc, provider } = await setup();
    setSvcTracerProvider({ getTracer: (name, version) => provider.getTracer(name, version) });

    const result = await svc.experiment.run({ name: "capitals", data: capitals, task: answer });

    expect(result.itemResults.map((r) => r.error)).toEqual([undefined, undefined]);
  });
});

describe("experiment options", () => {
  it("records a Date datasetVersion as an ISO timestamp on every item", async () => {
    const { server, svc } = await setup();

    await svc.experiment.run({
      name: "capitals",
      data: capitals,
      task: answer,
      datasetVersion: new Date("2026-03-04T05:06:07.000Z"),
    });

    const versions = rootSpans(server).map((s) => attributesOf(s)[A.EXPERIMENT_ITEM_VERSION]);
    expect(versions).toEqual(["2026-03-04T05:06:07.000Z", "2026-03-04T05:06:07.000Z"]);
  });

  it("leaves out a datasetVersion that is not a timestamp and logs one warning", async () => {
    const { server, svc } = await setup();
    const logs = captureLogs();

    await svc.experiment.run({ name: "capitals", data: capitals, task: answer, datasetVersion: "v2" });

    expect(rootSpans(server).map((s) => attributesOf(s)[A.EXPERIMENT_ITEM_VERSION])).toEqual([undefined, undefined]);
    expect(logs.filter((l) => l.message.includes("datasetVersion"))).toHaveLength(1);
  });

  it("fails an item without input without calling the task", async () => {
    const { svc } = await setup();
    const seen: unknown[] = [];

    const result = await svc.experiment.run({
      name: "capitals",
      data: [{ expectedOutput: "Paris" }, capitals[1]!],
      task: async (item) => {
        seen.push(item.input);
        return answer(item);
      },
    });

    expect(seen).toEqual(["Japan"]);
    expect(result.itemResults[0]).toMatchObject({ error: "item has no input", traceId: undefined });
    expect(result.itemResults[1]).toMatchObject({ output: "Kyoto" });
  });

  it("falls back to 50 items in flight for an invalid maxConcurrency and logs a warning", async () => {
    const { svc } = await setup();
    const logs = captureLogs();
    const probe = concurrencyProbe(50);

    await svc.experiment.run({
      name: "load",
      maxConcurrency: 0,
      data: Array.from({ length: 60 }, (_, i) => ({ input: i })),
      task: ({ input }) => probe.run(input),
    });

    expect(probe.peak).toBe(50);
    expect(logs.some((l) => l.level === "warn" && l.message.includes("maxConcurrency"))).toBe(true);
  });

  it("throws a TypeError naming the option when task is not a function", async () => {
    const { svc } = await setup();

    const error = await svc.experiment
      .run({ name: "capitals", data: capitals, task: "answer" as unknown as typeof answer })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain("option task must be a function");
  });

  it("still runs and scores the items when spans are not recorded, and warns once", async () => {
    const { server, svc } = await setup();
    setSvcTracerProvider(new BasicTracerProvider({ sampler: new AlwaysOffSampler() }));
    const logs = captureLogs();

    const result = await svc.experiment.run({
      name: "capitals",
      data: capitals,
      task: answer,
      evaluators: [() => ({ name: "seen", value: 1 })],
    });

    expect(result.itemResults.map((r) => r.output)).toEqual(["Paris", "Kyoto"]);
    expect(sentScores(server)).toHaveLength(2);
    expect(logs.filter((l) => l.level === "warn" && l.message.includes("not recorded"))).toHaveLength(1);
  });

  it("runs without a link when the project id cannot be read, and says so in the summary", async () => {
    const { server, svc } = await setup();
    server.reply((req) => (req.path === "/api/public/projects" ? { status: 401, json: {} } : { json: {} }));
    const logs = captureLogs();

    const result = await svc.experiment.run({ name: "capitals", data: [capitals[0]!], task: answer });

    expect(result.experimentUrl).toBeUndefined();
    expect(result.format()).toContain("link unavailable");
    expect(logs.some((l) => l.level === "warn" && l.message.includes("no experiment link"))).toBe(true);
  });
});

describe("createEvaluatorFromAutoevals", () => {
  it("passes input, output, expected and the extra params to the scorer and maps its score", async () => {
    const calls: unknown[] = [];
    const levenshtein = (args: { input: unknown; output: unknown; expected: unknown; model: string }) => {
      calls.push(args);
      return { name: "Levenshtein", score: 0.8, metadata: { distance: 1 } };
    };

    const evaluate = createEvaluatorFromAutoevals(levenshtein, { model: "m-1" });
    const evaluation = await evaluate({ input: "France", output: "Pariss", expectedOutput: "Paris", metadata: {} });

    expect(calls).toEqual([{ model: "m-1", input: "France", output: "Pariss", expected: "Paris" }]);
    expect(evaluation).toEqual({ name: "Levenshtein", value: 0.8, metadata: { distance: 1 } });
  });

  it("scores 0 when the scorer gives no score", async () => {
    const evaluate = createEvaluatorFromAutoevals(async () => ({ name: "Factuality", score: null }));

    const evaluation = await evaluate({ input: 1, output: 2, expectedOutput: 3, metadata: undefined });

    expect(evaluation).toMatchObject({ name: "Factuality", value: 0 });
  });
});

describe("RegressionError", () => {
  const result = { runName: "r" } as unknown as ExperimentResult;

  it("names the metric, value and threshold in its message", () => {
    const error = new RegressionError({ result, metric: "accuracy", value: 0.7, threshold: 0.9 });

    expect(error.message).toBe("Regression on `accuracy`: 0.7 (threshold 0.9)");
    expect(error).toMatchObject({ name: "RegressionError", result, metric: "accuracy", value: 0.7, threshold: 0.9 });
    expect(error).toBeInstanceOf(Error);
  });

  it("uses a default message without a metric and a given one as is", () => {
    expect(new RegressionError({ result }).message).toBe("Experiment regression detected");
    expect(new RegressionError({ result, message: "too slow" }).message).toBe("too slow");
  });
});

describe("RunnerContext", () => {
  it("fills in its data, dataset version and metadata under the run's own", async () => {
    const { server, svc } = await setup();
    const ctx = new RunnerContext({
      client: svc,
      data: [capitals[0]!],
      datasetVersion: "2026-03-01T00:00:00.000Z",
      metadata: { commit: "abc", model: "default" },
    });

    const result = await ctx.runExperiment({ name: "capitals", task: answer, metadata: { model: "m-2" } });

    expect(result.itemResults.map((r) => r.output)).toEqual(["Paris"]);
    expect(attributesOf(rootSpans(server)[0]!)).toMatchObject({
      [A.EXPERIMENT_ITEM_VERSION]: "2026-03-01T00:00:00.000Z",
      [A.EXPERIMENT_METADATA]: '{"commit":"abc","model":"m-2"}',
    });
  });

  it("rejects with a TypeError when neither the run nor the context gives data", async () => {
    const { svc } = await setup();

    const error = await new RunnerContext({ client: svc })
      .runExperiment({ name: "capitals", task: answer })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
  });
});
