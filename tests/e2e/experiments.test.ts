import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

async function datasetWithItems(name: string, count: number) {
  const dataset = await e2e.svc.api.datasets.create({ name });
  for (let i = 0; i < count; i++) {
    await e2e.svc.dataset.createItem({ datasetName: name, input: { n: i }, expectedOutput: i + 1 });
  }
  return dataset;
}

describe("experiments against the dev server", () => {
  it("records a dataset run that the experiments routes list with its items and scores", async () => {
    const name = `ds-${randomUUID().slice(0, 8)}`;
    const created = await datasetWithItems(name, 3);
    const dataset = await e2e.svc.dataset.get(name);

    const result = await dataset.runExperiment({
      name: "increment",
      runName: `${name}-run`,
      task: ({ input }) => (input as { n: number }).n + 1,
      evaluators: [({ output, expectedOutput }) => ({ name: "correct", value: output === expectedOutput ? 1 : 0 })],
      runEvaluators: [({ itemResults }) => ({ name: "items", value: itemResults.length })],
    });
    await e2e.flush();

    const experiments = await e2e.svc.api.experiments.list({
      fromStartTime: created.createdAt,
      datasetId: created.id,
      fields: "core,scores",
    });
    const items = await e2e.svc.api.experiments.listItems({
      fromStartTime: created.createdAt,
      experimentId: result.experimentId,
      fields: "core,dataset,io,scores",
    });

    expect(experiments.data).toEqual([
      expect.objectContaining({
        id: result.experimentId,
        name: `${name}-run`,
        itemCount: 3,
        datasetId: created.id,
        scores: [expect.objectContaining({ name: "items", value: 3 })],
      }),
    ]);
    expect(items.data.map((i) => i.traceId).sort()).toEqual(result.itemResults.map((r) => r.traceId).sort());
    expect(new Set(items.data.map((i) => i.experimentItemId))).toEqual(new Set(dataset.items.map((i) => i.id)));
    for (const item of items.data) {
      expect(item.experimentDatasetId).toBe(created.id);
      expect(item.scores).toEqual([expect.objectContaining({ name: "correct", value: 1 })]);
    }
  });

  it("deletes an experiment's traces, found by paging its items", async () => {
    const name = `ds-${randomUUID().slice(0, 8)}`;
    const created = await datasetWithItems(name, 5);
    const dataset = await e2e.svc.dataset.get(name);
    const result = await dataset.runExperiment({ name: "noop", runName: `${name}-run`, task: () => "done" });
    await e2e.flush();

    const deleted = await e2e.svc.experiment.deleteData({ datasetName: name, experimentName: `${name}-run` });
    const left = await e2e.svc.api.experiments.listItems({
      fromStartTime: created.createdAt,
      experimentId: result.experimentId,
    });

    expect(deleted.deletedTraceIds.sort()).toEqual(result.itemResults.map((r) => r.traceId).sort());
    expect(left.data).toEqual([]);
  });
});
