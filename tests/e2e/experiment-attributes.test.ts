import { randomUUID } from "node:crypto";
import { startActiveObservation } from "@svc/tracing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";

// A server that builds its experiment views from the `svc.experiment.*` span attributes never misses an item: every
// span of every item's trace carries the run, the item and the dataset, whatever became of the item.

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

const never = () => new Promise<never>(() => {});

describe("experiment attributes on every outcome", () => {
  it("are on every span of the items that succeed, fail, time out and are retried, and each item is listed", async () => {
    const name = `outcomes-${randomUUID().slice(0, 8)}`;
    const created = await e2e.svc.api.datasets.create({ name });
    for (const input of ["ok", "fails", "hangs", "retried"])
      await e2e.svc.dataset.createItem({ datasetName: name, input });
    const dataset = await e2e.svc.dataset.get(name);

    const result = await dataset.runExperiment({
      name: "outcomes",
      runName: `${name} run`,
      maxRetries: 1,
      itemTimeoutMs: 400,
      showProgress: false,
      task: async ({ input }, { attempt }) =>
        startActiveObservation("task-step", async () => {
          if (input === "fails") throw new Error("always fails");
          if (input === "hangs") return never();
          if (input === "retried" && attempt === 1) throw new Error("first attempt fails");
          return `done ${input}`;
        }),
    });
    await e2e.flush();

    const byInput = Object.fromEntries(result.itemResults.map((r) => [String(r.input), r]));
    expect(Object.fromEntries(Object.entries(byInput).map(([k, r]) => [k, [r.status, r.attempts]]))).toEqual({
      ok: ["ok", 1],
      fails: ["failed", 2],
      hangs: ["timeout", 2],
      retried: ["ok", 2],
    });
    for (const item of dataset.items) {
      const itemResult = byInput[String(item.input)];
      const spans = e2e.server.store.spansOfTrace(itemResult?.traceId ?? "none");
      // The root, an attempt span per attempt, and the task's own span in each attempt that ended.
      const names = spans.map((s) => s.name).sort();
      expect(names.filter((n) => n === "experiment-item-run")).toHaveLength(1);
      expect(names.filter((n) => n === "experiment-item-attempt")).toHaveLength(itemResult?.attempts ?? -1);
      for (const span of spans) {
        expect(span.attributes, `${item.input}: ${span.name}`).toMatchObject({
          "svc.experiment.id": result.experimentId,
          "svc.experiment.name": `${name} run`,
          "svc.experiment.item.id": item.id,
          "svc.experiment.dataset.id": created.id,
          "svc.environment": "sdk-experiment",
        });
      }
    }

    const listed = await e2e.svc.api.experiments.listItems({
      fromStartTime: created.createdAt,
      experimentId: result.experimentId,
      fields: "core,dataset",
    });
    const levels = Object.fromEntries(
      listed.data.map((i) => [String(dataset.items.find((d) => d.id === i.experimentItemId)?.input), i.level]),
    );
    expect(levels).toEqual({ ok: "DEFAULT", fails: "ERROR", hangs: "ERROR", retried: "DEFAULT" });
    for (const i of listed.data) expect(i.experimentDatasetId).toBe(created.id);
  });
});
