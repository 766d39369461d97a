import { describe, expect, it } from "vitest";
import { hexId, otlpJsonExport, type SpanSpec, type TestDevServer, useDevServer } from "../support/dev-server.ts";

async function ingest(server: TestDevServer, spans: SpanSpec[]) {
  const res = await server.request("POST", "/api/public/otel/v1/traces", { body: otlpJsonExport(spans) });
  expect(res.status).toBe(200);
}

async function read(server: TestDevServer, query: string) {
  const res = await server.request("GET", `/api/public/v2/observations?${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe("dev server: observations v2", () => {
  it("returns the core and basic field groups by default", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    await ingest(server, [{ traceId, spanId: hexId(8), name: "root", attributes: { "user.id": "u-1" } }]);

    const { data } = await read(server, `traceId=${traceId}`);

    expect(Object.keys(data[0]).sort()).toEqual(
      [
        ...["id", "traceId", "startTime", "endTime", "projectId", "parentObservationId", "type"],
        ...["name", "level", "statusMessage", "version", "environment", "bookmarked", "public"],
        ...["userId", "sessionId", "isRootObservation"],
      ].sort(),
    );
    expect(data[0]).toMatchObject({ name: "root", userId: "u-1", isRootObservation: true, environment: "default" });
  });

  it("maps generation attributes to the model, usage, prompt and time groups", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    await ingest(server, [
      {
        traceId,
        spanId: hexId(8),
        name: "gen",
        startMs: start,
        endMs: start + 2000,
        attributes: {
          "svc.observation.type": "generation",
          "svc.observation.model.name": "m-1",
          "svc.observation.model.parameters": '{"temperature":0.2}',
          "svc.observation.usage_details": '{"input":10,"output":4}',
          "svc.observation.cost_details": '{"total":0.5}',
          "svc.observation.completion_start_time": '"2026-01-01T00:00:00.500Z"',
          "svc.observation.prompt.name": "greeting",
          "svc.observation.prompt.version": 3,
          "svc.trace.tags": ["a", "b"],
          "svc.trace.name": "my-trace",
          "svc.release": "r-1",
        },
      },
    ]);

    const { data } = await read(server, `traceId=${traceId}&fields=core,model,usage,prompt,time,metrics,trace_context`);

    expect(data[0]).toMatchObject({
      type: "GENERATION",
      providedModelName: "m-1",
      modelParameters: { temperature: 0.2 },
      usageDetails: { input: 10, output: 4 },
      costDetails: { total: 0.5 },
      totalCost: 0.5,
      promptName: "greeting",
      promptVersion: 3,
      completionStartTime: "2026-01-01T00:00:00.500Z",
      latency: 2,
      timeToFirstToken: 0.5,
      tags: ["a", "b"],
      traceName: "my-trace",
      release: "r-1",
    });
  });

  it("keeps number and boolean metadata types and reads nested objects once, not again leaf by leaf", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    await ingest(server, [
      {
        traceId,
        spanId: hexId(8),
        name: "s",
        attributes: {
          "svc.observation.metadata.count": 3,
          "svc.observation.metadata.ok": true,
          "svc.observation.metadata.nested": '{"a":{"b":1}}',
          "svc.observation.metadata.nested.a.b": 1,
          "svc.observation.metadata.dotted.key": "kept",
          "svc.trace.metadata.team": "search",
        },
      },
    ]);

    const { data } = await read(server, `traceId=${traceId}&fields=metadata`);

    expect(data[0].metadata).toEqual({
      count: 3,
      ok: true,
      nested: { a: { b: 1 } },
      "dotted.key": "kept",
      team: "search",
    });
  });

  it("filters by session id, carried by any span of the trace", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const root = hexId(8);
    await ingest(server, [
      { traceId, spanId: root, name: "root", attributes: { "session.id": "sess-1" } },
      { traceId, spanId: hexId(8), parentSpanId: root, name: "child" },
      { traceId: hexId(16), spanId: hexId(8), name: "other" },
    ]);

    const { data } = await read(server, "sessionId=sess-1");

    expect(data.map((o: { name: string }) => o.name).sort()).toEqual(["child", "root"]);
  });

  it("filters by start time range", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const t = Date.parse("2026-02-01T00:00:00Z");
    await ingest(
      server,
      [0, 1, 2].map((i) => ({ traceId, spanId: hexId(8), name: `s${i}`, startMs: t + i * 60_000 })),
    );

    const from = new Date(t + 60_000).toISOString();
    const to = new Date(t + 120_000).toISOString();
    const { data } = await read(server, `fromStartTime=${from}&toStartTime=${to}`);

    expect(data.map((o: { name: string }) => o.name)).toEqual(["s1"]);
  });

  it("filters with the JSON filter parameter, by dotted metadata key", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    await ingest(server, [
      { traceId, spanId: hexId(8), name: "yes", attributes: { "svc.observation.metadata.cfg": '{"a":{"b":1}}' } },
      { traceId, spanId: hexId(8), name: "no", attributes: { "svc.observation.metadata.cfg": '{"a":{"b":2}}' } },
    ]);
    const filter = [{ type: "numberObject", column: "metadata", key: "cfg.a.b", operator: "=", value: 1 }];

    const { data } = await read(server, `filter=${encodeURIComponent(JSON.stringify(filter))}`);

    expect(data.map((o: { name: string }) => o.name)).toEqual(["yes"]);
  });

  it("pages with the cursor until meta.cursor is absent", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const t = Date.now();
    await ingest(
      server,
      Array.from({ length: 5 }, (_, i) => ({ traceId, spanId: hexId(8), name: `s${i}`, startMs: t - i * 1000 })),
    );

    const first = await read(server, `traceId=${traceId}&limit=2`);
    const second = await read(server, `traceId=${traceId}&limit=2&cursor=${first.meta.cursor}`);
    const third = await read(server, `traceId=${traceId}&limit=2&cursor=${second.meta.cursor}`);

    const names = [...first.data, ...second.data, ...third.data].map((o: { name: string }) => o.name);
    expect(names).toEqual(["s0", "s1", "s2", "s3", "s4"]);
    expect(third.meta.cursor).toBeUndefined();
  });

  it("answers 400 to an unknown field group", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/v2/observations?fields=core,secrets");

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Unknown field group\(s\) secrets/);
  });

  it("answers 400 to a cursor it did not issue", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/v2/observations?cursor=bogus");

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Invalid cursor/);
  });
});
