import { SvcClient } from "@svc/client";
import { SvcOtelSpanAttributes as A, startActiveObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  answer,
  capitals,
  concurrencyProbe,
  DATASET,
  rootSpans,
  sentScores,
  setup,
  useExperimentTracing,
} from "../support/experiment.ts";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans } from "../support/otel.ts";

useExperimentTracing();

describe("svc.experiment.run", () => {
  it("runs each item in a trace of its own, with the experiment recorded on its root span", async () => {
    const { server, svc } = await setup();

    const result = await svc.experiment.run({
      name: "capitals",
      runName: "run-1",
      description: "first try",
      metadata: { model: "m-1" },
      data: capitals,
      task: answer,
    });

    const roots = rootSpans(server);
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((s) => s.traceId)).size).toBe(2);
    expect(result.itemResults.map((r) => r.traceId).sort()).toEqual(roots.map((s) => s.traceId).sort());
    const france = roots.find((s) => attributesOf(s)[A.OBSERVATION_INPUT] === "France")!;
    expect(attributesOf(france)).toMatchObject({
      [A.EXPERIMENT_ID]: result.experimentId,
      [A.EXPERIMENT_NAME]: "run-1",
      [A.EXPERIMENT_DESCRIPTION]: "first try",
      [A.EXPERIMENT_METADATA]: '{"model":"m-1"}',
      [A.EXPERIMENT_ITEM_METADATA]: '{"region":"eu"}',
      [A.EXPERIMENT_ITEM_EXPECTED_OUTPUT]: "Paris",
      [A.EXPERIMENT_ITEM_ROOT_OBSERVATION_ID]: france.spanId,
      [A.ENVIRONMENT]: "sdk-experiment",
      [A.OBSERVATION_OUTPUT]: "Paris",
    });
    expect(attributesOf(france)[A.EXPERIMENT_ITEM_ID]).toMatch(/^[0-9a-f]{16}$/);
    expect(result.experimentId).toMatch(/^[0-9a-f]{16}$/);
  });

  it("propagates the experiment attributes to the task's child observations", async () => {
    const { server, svc } = await setup();

    await svc.experiment.run({
      name: "capitals",
      description: "with a child",
      metadata: { model: "m-1" },
      datasetVersion: "2026-02-03T04:05:06.000Z",
      data: [capitals[0]!],
      task: (item) => startActiveObservation("model-call", async () => answer(item), { asType: "generation" }),
    });

    const [root] = rootSpans(server);
    const child = exportedSpans(server).find((s) => s.name === "model-call")!;
    expect(child.traceId).toBe(root!.traceId);
    const rootAttributes = attributesOf(root!);
    const childAttributes = attributesOf(child);
    expect(rootAttributes).toMatchObject({
      [A.EXPERIMENT_METADATA]: '{"model":"m-1"}',
      [A.EXPERIMENT_ITEM_VERSION]: "2026-02-03T04:05:06.000Z",
      [A.EXPERIMENT_ITEM_METADATA]: '{"region":"eu"}',
    });
    for (const key of [
      A.EXPERIMENT_ID,
      A.EXPERIMENT_NAME,
      A.EXPERIMENT_METADATA,
      A.EXPERIMENT_ITEM_ID,
      A.EXPERIMENT_ITEM_VERSION,
      A.EXPERIMENT_ITEM_METADATA,
      A.EXPERIMENT_ITEM_ROOT_OBSERVATION_ID,
    ]) {
      expect(childAttributes[key], key).toBe(rootAttributes[key]);
    }
    expect(childAttributes[A.ENVIRONMENT]).toBe("sdk-experiment");
    expect(childAttributes[A.EXPERIMENT_DESCRIPTION]).toBeUndefined();
    expect(childAttributes[A.EXPERIMENT_ITEM_EXPECTED_OUTPUT]).toBeUndefined();
  });

  it("starts a new trace for each item even when run inside an active observation", async () => {
    const { server, svc } = await setup();

    const outerTraceId = await startActiveObservation("ci-job", async (outer) => {
      await svc.experiment.run({ name: "capitals", data: capitals, task: answer });
      return outer.traceId;
    });

    const roots = rootSpans(server);
    expect(roots).toHaveLength(2);
    for (const root of roots) {
      expect(root.traceId).not.toBe(outerTraceId);
      expect(root.parentSpanId).toBeUndefined();
    }
  });

  it("defaults the run name to the experiment name and the start time", async () => {
    const { svc } = await setup();

    const result = await svc.experiment.run({ name: "capitals", data: [], task: answer });

    expect(result.runName).toMatch(/^capitals - \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("sends item evaluations as scores on the item's trace and run evaluations linked to the experiment", async () => {
    const { server, svc } = await setup();

    const result = await svc.experiment.run({
      name: "capitals",
      data: capitals,
      task: answer,
      evaluators: [
        ({ output, expectedOutput }) => ({ name: "exact", value: output === expectedOutput ? 1 : 0 }),
        ({ output }) => [{ name: "length", value: String(output).length, comment: "chars", configId: "cfg-1" }],
      ],
      runEvaluators: [
        ({ itemResults }) => ({
          name: "accuracy",
          value: itemResults.filter((r) => r.evaluations.some((e) => e.name === "exact" && e.value === 1)).length / 2,
        }),
      ],
    });

    const scores = sentScores(server);
    for (const item of result.itemResults) {
      const root = rootSpans(server).find((s) => s.traceId === item.traceId)!;
      const onTrace = scores.filter((s) => s.traceId === item.traceId);
      expect(onTrace.map((s) => s.name).sort()).toEqual(["exact", "length"]);
      for (const score of onTrace) expect(score.observationId).toBe(root.spanId);
    }
    expect(scores.find((s) => s.traceId === result.itemResults[0]!.traceId && s.name === "length")).toMatchObject({
      value: 5,
      comment: "chars",
      configId: "cfg-1",
    });
    const runScore = scores.find((s) => s.name === "accuracy");
    expect(runScore).toMatchObject({ value: 0.5, datasetRunId: result.experimentId });
    expect(runScore?.traceId).toBeUndefined();
    expect(result.runEvaluations).toEqual([{ name: "accuracy", value: 0.5 }]);
  });

  it("never has more items in flight than maxConcurrency", async () => {
    const { svc } = await setup();
    const probe = concurrencyProbe(3);

    const result = await svc.experiment.run({
      name: "load",
      maxConcurrency: 3,
      data: Array.from({ length: 12 }, (_, i) => ({ input: i })),
      task: ({ input }) => probe.run(input),
    });

    expect(probe.peak).toBe(3);
    expect(result.itemResults.map((r) => r.output)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it("starts the items of local data in data order, and the next one as soon as any running item settles", async () => {
    const { svc } = await setup();
    const started: string[] = [];
    const release = new Map<string, () => void>();
    // The first item's input takes longest to hash into its id; it still starts first.
    const data = [{ input: "a".repeat(20_000_000) }, { input: "b" }, { input: "c" }, { input: "d" }];
    const name = (input: string | undefined) => (input ?? "").slice(0, 1);

    const running = svc.experiment.run({
      name: "order",
      maxConcurrency: 2,
      data,
      task: ({ input }) => {
        started.push(name(input));
        return new Promise<string>((resolve) => release.set(name(input), () => resolve(name(input))));
      },
    });
    const startedCount = async (count: number) => {
      for (let i = 0; i < 500 && started.length < count; i++) await new Promise((r) => setTimeout(r, 5));
    };
    await startedCount(2);
    expect(started).toEqual(["a", "b"]);
    release.get("b")?.();
    await startedCount(3);
    expect(started).toEqual(["a", "b", "c"]);
    release.get("c")?.();
    await startedCount(4);
    expect(started).toEqual(["a", "b", "c", "d"]);
    release.get("a")?.();
    release.get("d")?.();
    const result = await running;

    expect(result.itemResults.map((r) => r.output)).toEqual(["a", "b", "c", "d"]);
  });

  it("fails only the item whose task throws, and marks its span as an error", async () => {
    const { server, svc } = await setup();
    const logs = captureLogs();

    const result = await svc.experiment.run({
      name: "capitals",
      data: capitals,
      task: async (item) => {
        if (item.input === "Japan") throw new Error("model timed out");
        return answer(item);
      },
      evaluators: [() => ({ name: "seen", value: 1 })],
    });

    const [france, japan] = result.itemResults;
    expect(france).toMatchObject({ output: "Paris", evaluations: [{ name: "seen", value: 1 }] });
    expect(france!.error).toBeUndefined();
    expect(japan).toMatchObject({ error: "model timed out", output: undefined, evaluations: [] });
    const japanSpan = rootSpans(server).find((s) => s.traceId === japan!.traceId)!;
    expect(attributesOf(japanSpan)).toMatchObject({
      [A.OBSERVATION_LEVEL]: "ERROR",
      [A.OBSERVATION_STATUS_MESSAGE]: "model timed out",
    });
    expect(sentScores(server).map((s) => s.traceId)).toEqual([france!.traceId]);
    expect(logs.some((l) => l.level === "warn" && l.message.includes("model timed out"))).toBe(true);
  });

  it("fails only the evaluation whose evaluator throws, and sends the others", async () => {
    const { server, svc } = await setup();

    const result = await svc.experiment.run({
      name: "capitals",
      data: [capitals[0]!],
      task: answer,
      evaluators: [
        function strictJudge() {
          throw new Error("judge unavailable");
        },
        () => ({ name: "exact", value: true }),
      ],
      runEvaluators: [
        async () => {
          throw new Error("no summary today");
        },
      ],
    });

    const [item] = result.itemResults;
    expect(item!.evaluations).toEqual([{ name: "exact", value: true }]);
    expect(item!.evaluationFailures).toEqual([{ evaluator: "evaluator strictJudge", message: "judge unavailable" }]);
    expect(result.runEvaluationFailures).toEqual([{ evaluator: "evaluator #1", message: "no summary today" }]);
    expect(sentScores(server)).toEqual([
      expect.objectContaining({ name: "exact", value: 1, dataType: "BOOLEAN", traceId: item!.traceId }),
    ]);
  });

  it("links the result to the experiment comparison view of the project", async () => {
    const { server, svc } = await setup();

    const result = await svc.experiment.run({ name: "capitals", data: [capitals[0]!], task: answer });

    expect(result.experimentUrl).toBe(
      `${server.url}/project/proj-1/experiments/results?baseline=${result.experimentId}`,
    );
    expect(result.format()).toContain(`Experiment: ${result.experimentUrl}`);
  });
});

describe("dataset.runExperiment", () => {
  it("records the dataset, item and version on spans and never calls dataset-run-items", async () => {
    const { server, svc } = await setup();
    const version = "2026-02-03T04:05:06.000Z";
    const dataset = await svc.dataset.get("capitals", { version });

    const result = await dataset.runExperiment({
      name: "capitals",
      task: answer,
      evaluators: [({ output, expectedOutput }) => ({ name: "exact", value: output === expectedOutput })],
      runEvaluators: [() => ({ name: "runs", value: 1 })],
    });

    expect(server.seen.some((r) => r.path.includes("dataset-run-items"))).toBe(false);
    const byItem = new Map(rootSpans(server).map((s) => [attributesOf(s)[A.EXPERIMENT_ITEM_ID], attributesOf(s)]));
    expect([...byItem.keys()].sort()).toEqual(["item-1", "item-2"]);
    expect(byItem.get("item-1")).toMatchObject({
      [A.EXPERIMENT_DATASET_ID]: "ds-1",
      [A.EXPERIMENT_ITEM_VERSION]: version,
      [A.EXPERIMENT_ITEM_EXPECTED_OUTPUT]: "Paris",
    });
    expect(Number.isNaN(Date.parse(String(byItem.get("item-2")?.[A.EXPERIMENT_ITEM_VERSION])))).toBe(false);
    expect(result.itemResults.map((r) => r.output)).toEqual(["Paris", "Kyoto"]);
    expect(sentScores(server).filter((s) => s.datasetRunId === result.experimentId)).toHaveLength(1);
  });
});

describe("svc.experiment.deleteData", () => {
  it("pages the experiment items from the dataset's creation and deletes 2,500 traces in 3 calls", async () => {
    const traceIds = Array.from({ length: 2500 }, (_, i) => `trace-${i}`);
    // Pages of 600 items, where each page repeats the last id of the previous one.
    const pages = [0, 1, 2, 3, 4].map((p) =>
      traceIds.slice(Math.max(0, p * 600 - 1), (p + 1) * 600).map((traceId) => ({ id: `ei-${traceId}`, traceId })),
    );
    const server = await startServer((req) => {
      if (req.path === "/api/public/v2/datasets/capitals") return { json: DATASET };
      if (req.path === "/api/public/experiment-items") {
        const page = Number(req.query.get("cursor") ?? "0");
        const cursor = page + 1 < pages.length ? String(page + 1) : null;
        return { json: { data: pages[page], meta: cursor === null ? {} : { cursor } } };
      }
      return { json: {} };
    });
    onTestFinished(() => server.close());
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" });

    const result = await svc.experiment.deleteData({ datasetName: "capitals", experimentName: "run-1" });

    const listCalls = server.seen.filter((r) => r.path === "/api/public/experiment-items");
    expect(listCalls.map((r) => r.query.get("cursor"))).toEqual([null, "1", "2", "3", "4"]);
    for (const call of listCalls) {
      expect(call.query.get("datasetId")).toBe("ds-1");
      expect(call.query.get("experimentName")).toBe("run-1");
      expect(new Date(call.query.get("fromStartTime") ?? "").toISOString()).toBe(DATASET.createdAt);
    }
    const deletes = server.seen.filter((r) => r.method === "DELETE" && r.path === "/api/public/traces");
    expect(deletes).toHaveLength(3);
    const batches = deletes.map((r) => (r.json as { traceIds: string[] }).traceIds);
    for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(1000);
    expect(batches.flat().sort()).toEqual([...traceIds].sort());
    expect(result.deletedTraceIds).toHaveLength(2500);
  });

  it("deletes nothing when the experiment has no items", async () => {
    const server = await startServer((req) => {
      if (req.path === "/api/public/v2/datasets/capitals") return { json: DATASET };
      if (req.path === "/api/public/experiment-items") return { json: { data: [], meta: { cursor: null } } };
      return { json: {} };
    });
    onTestFinished(() => server.close());
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" });

    const result = await svc.experiment.deleteData({ datasetName: "capitals", experimentName: "nothing" });

    expect(result.deletedTraceIds).toEqual([]);
    expect(server.seen.some((r) => r.method === "DELETE")).toBe(false);
  });
});
