import { randomUUID } from "node:crypto";
import type { ExperimentProgress } from "@svc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";
import { concurrencyProbe } from "../support/experiment.ts";

// Trials: each item runs `trials` times, each trial a trace of its own linked to the same item and run, with a task
// that fails now and then, as model calls do.

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

describe("trials with a flaky task", () => {
  it("runs each item three times, retries the flaky first attempts, and sums each evaluator up per item", async () => {
    const name = `trials-${randomUUID().slice(0, 8)}`;
    await e2e.svc.api.datasets.create({ name });
    for (const input of ["a", "b", "flaky"]) await e2e.svc.dataset.createItem({ datasetName: name, input });
    const dataset = await e2e.svc.dataset.get(name);
    const calls = new Map<string, number>();
    const progress: ExperimentProgress[] = [];
    const seenByRunEvaluator: number[] = [];

    const result = await dataset.runExperiment({
      name: "trials",
      runName: `${name} run`,
      trials: 3,
      maxRetries: 1,
      maxConcurrency: 2,
      showProgress: false,
      onProgress: (p) => progress.push(p),
      task: ({ input }, { attempt }) => {
        // "flaky" fails the first attempt of every trial; every successful call of an item counts up: 1, 2, 3.
        if (input === "flaky" && attempt === 1) throw new Error("model overloaded");
        const count = (calls.get(String(input)) ?? 0) + 1;
        calls.set(String(input), count);
        return count;
      },
      evaluators: [({ output }) => ({ name: "count", value: output as number })],
      runEvaluators: [
        ({ itemResults }) => {
          seenByRunEvaluator.push(itemResults.flatMap((r) => r.trials).length);
          return { name: "trials_seen", value: itemResults.flatMap((r) => r.trials).length };
        },
      ],
    });
    await e2e.flush();

    expect(seenByRunEvaluator).toEqual([9]);
    for (const item of result.itemResults) {
      expect(item.status).toBe("ok");
      expect(item.trials.map((t) => t.trial)).toEqual([1, 2, 3]);
      expect(item.trials.map((t) => t.status)).toEqual(["ok", "ok", "ok"]);
      expect(item.trials.map((t) => t.attempts)).toEqual(item.input === "flaky" ? [2, 2, 2] : [1, 1, 1]);
      expect(new Set(item.trials.map((t) => t.traceId)).size).toBe(3);
      // Values 1, 2 and 3: mean 2, population standard deviation sqrt(2/3).
      expect(item.scores.count).toEqual({ mean: 2, stdev: Math.sqrt(2 / 3), min: 1, max: 3, count: 3 });
    }
    expect(progress.at(-1)).toMatchObject({ total: 9, done: 9, ok: 9, failed: 0, retries: 3, running: 0 });

    const listed = await e2e.svc.api.experiments.listItems({
      fromStartTime: "2020-01-01T00:00:00Z",
      experimentId: result.experimentId,
      fields: "core,scores",
      limit: 100,
    });
    const traceIds = result.itemResults.flatMap((r) => r.trials.map((t) => t.traceId));
    expect(listed.data.map((i) => i.traceId).sort()).toEqual([...traceIds].sort());
    for (const item of dataset.items) {
      const ofItem = listed.data.filter((i) => i.experimentItemId === item.id);
      expect(ofItem).toHaveLength(3);
      expect(
        ofItem
          .flatMap((i) => i.scores ?? [])
          .map((s) => s.value)
          .sort(),
      ).toEqual([1, 2, 3]);
    }
  });

  it("fails an item when one of its trials fails, and shows that trial in the item and the others beside it", async () => {
    let calls = 0;

    const result = await e2e.svc.experiment.run({
      name: "trials-no-retry",
      data: [{ input: "x" }],
      trials: 3,
      maxConcurrency: 1,
      showProgress: false,
      task: () => {
        calls++;
        if (calls === 2) throw new Error("model overloaded");
        return "ok";
      },
      evaluators: [() => ({ name: "seen", value: 1 })],
    });

    const [item] = result.itemResults;
    expect(item?.trials.map((t) => [t.trial, t.status, t.error])).toEqual([
      [1, "ok", undefined],
      [2, "failed", "model overloaded"],
      [3, "ok", undefined],
    ]);
    expect(item).toMatchObject({ status: "failed", error: "model overloaded", traceId: item?.trials[1]?.traceId });
    expect(item?.scores.seen).toEqual({ mean: 1, stdev: 0, min: 1, max: 1, count: 2 });
  });

  it("gives each trial a place of its own under maxConcurrency", async () => {
    const probe = concurrencyProbe(2);

    await e2e.svc.experiment.run({
      name: "trials-concurrency",
      data: [{ input: "only" }],
      trials: 4,
      maxConcurrency: 2,
      showProgress: false,
      task: ({ input }) => probe.run(input),
    });

    expect(probe.peak).toBe(2);
  });
});
