import { describe, expect, it } from "vitest";
import { hexId, otlpJsonExport, type SpanSpec, type TestDevServer, useDevServer } from "../support/dev-server.ts";

const FROM = "2020-01-01T00:00:00Z";

/** The spans the experiment runner records for one item: a root span and one child, both with the experiment keys. */
function itemSpans(experimentId: string, name: string, itemId: string, startMs: number): SpanSpec[] {
  const traceId = hexId(16);
  const rootId = hexId(8);
  const shared = {
    "svc.experiment.id": experimentId,
    "svc.experiment.name": name,
    "svc.experiment.dataset.id": "ds-1",
    "svc.experiment.item.id": itemId,
    "svc.experiment.item.root_observation_id": rootId,
    "svc.experiment.metadata": '{"model":"m-1"}',
    "svc.environment": "sdk-experiment",
  };
  return [
    {
      traceId,
      spanId: rootId,
      name: "experiment-item-run",
      startMs,
      attributes: {
        ...shared,
        "svc.observation.input": '{"q":1}',
        "svc.observation.output": '"a"',
        "svc.experiment.item.expected_output": '"a"',
        "svc.experiment.item.version": "2026-01-01T00:00:00.000Z",
        "svc.experiment.description": "first try",
      },
    },
    { traceId, spanId: hexId(8), parentSpanId: rootId, name: "task", startMs: startMs + 1, attributes: shared },
  ];
}

async function ingest(server: TestDevServer, spans: SpanSpec[]) {
  const res = await server.request("POST", "/api/public/otel/v1/traces", { body: otlpJsonExport(spans) });
  expect(res.status).toBe(200);
}

describe("dev server: experiments", () => {
  it("lists experiment items from the item root spans only", async () => {
    const server = await useDevServer();
    const t = Date.now();
    await ingest(server, [
      ...itemSpans("exp-1", "run-1", "item-a", t),
      ...itemSpans("exp-1", "run-1", "item-b", t + 5),
    ]);

    const res = await server.request(
      "GET",
      `/api/public/experiment-items?fromStartTime=${FROM}&fields=core,dataset,io`,
    );

    expect(res.status).toBe(200);
    expect(res.body.data.map((i: { experimentItemId: string }) => i.experimentItemId)).toEqual(["item-b", "item-a"]);
    expect(res.body.data[0]).toMatchObject({
      experimentId: "exp-1",
      experimentName: "run-1",
      experimentDatasetId: "ds-1",
      experimentItemVersion: "2026-01-01T00:00:00.000Z",
      environment: "sdk-experiment",
      input: '{"q":1}',
      output: '"a"',
      expectedOutput: '"a"',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(res.body.meta.cursor).toBeUndefined();
  });

  it("pages experiment items with the cursor", async () => {
    const server = await useDevServer();
    const t = Date.now();
    await ingest(
      server,
      [0, 1, 2, 3, 4].flatMap((i) => itemSpans("exp-1", "run-1", `item-${i}`, t + i * 10)),
    );

    const ids: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const query = `fromStartTime=${FROM}&experimentName=run-1&limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await server.request("GET", `/api/public/experiment-items?${query}`);
      ids.push(...res.body.data.map((i: { experimentItemId: string }) => i.experimentItemId));
      cursor = res.body.meta.cursor ?? undefined;
      if (!cursor) break;
    }

    expect(ids).toEqual(["item-4", "item-3", "item-2", "item-1", "item-0"]);
  });

  it("lists experiments with item count, dataset, metadata and run-level scores", async () => {
    const server = await useDevServer();
    const t = Date.now();
    await ingest(server, [
      ...itemSpans("exp-1", "run-1", "a", t),
      ...itemSpans("exp-1", "run-1", "b", t + 5),
      ...itemSpans("exp-2", "run-2", "a", t + 10),
    ]);
    await server.request("POST", "/api/public/scores", {
      body: [{ id: "avg", name: "avg_accuracy", value: 0.5, datasetRunId: "exp-1" }],
    });

    const res = await server.request(
      "GET",
      `/api/public/experiments?fromStartTime=${FROM}&fields=core,metadata,scores`,
    );

    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(["exp-2", "exp-1"]);
    expect(res.body.data[1]).toMatchObject({
      id: "exp-1",
      name: "run-1",
      description: "first try",
      itemCount: 2,
      datasetId: "ds-1",
      metadata: { model: "m-1" },
      scores: [expect.objectContaining({ id: "avg", value: 0.5 })],
    });
  });

  it("filters experiments by dataset id and start time", async () => {
    const server = await useDevServer();
    await ingest(server, itemSpans("exp-1", "run-1", "a", Date.parse("2026-03-01T00:00:00Z")));

    const later = await server.request("GET", "/api/public/experiments?fromStartTime=2026-04-01T00:00:00Z");
    const other = await server.request("GET", `/api/public/experiments?fromStartTime=${FROM}&datasetId=ds-2`);
    const match = await server.request("GET", `/api/public/experiments?fromStartTime=${FROM}&datasetId=ds-1`);

    expect(later.body.data).toEqual([]);
    expect(other.body.data).toEqual([]);
    expect(match.body.data.map((e: { id: string }) => e.id)).toEqual(["exp-1"]);
  });
});
