import { describe, expect, it } from "vitest";
import { useDevServer } from "../support/dev-server.ts";

describe("dev server: scores", () => {
  it("answers 200 with the accepted count when every score is valid", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/scores", {
      body: [
        { id: "s-1", name: "accuracy", value: 0.9, traceId: "t-1" },
        { id: "s-2", name: "label", value: "good", traceId: "t-1", observationId: "o-1" },
      ],
    });

    expect(res).toMatchObject({ status: 200, body: { accepted: 2 } });
    expect(res.body).not.toHaveProperty("rejected");
  });

  it("answers 207 with rejected and errors when only some scores are valid, and keeps the valid ones", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/scores", {
      body: [
        { id: "ok", name: "accuracy", value: 1, traceId: "t-1" },
        { id: "empty-name", name: "", value: 1, traceId: "t-1" },
        { name: "bool", value: 2, dataType: "BOOLEAN", traceId: "t-1" },
        { name: "typed", value: 1, traceId: "t-1", comment: 7 },
      ],
    });

    expect(res.status).toBe(207);
    expect(res.body).toEqual({
      accepted: 1,
      rejected: 3,
      errors: [
        { index: 1, id: "empty-name", message: "name must be a non-empty string" },
        { index: 2, message: "value must be 0 or 1 for dataType BOOLEAN" },
        { index: 3, message: "comment must be string,null" },
      ],
    });
    const read = await server.request("GET", "/api/public/v3/scores?traceId=t-1");
    expect(read.body.data.map((s: { id: string }) => s.id)).toEqual(["ok"]);
  });

  it("answers 207 with accepted 0 when no score of a well-formed batch is valid, and stores none", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/scores", {
      body: [
        { id: "a", name: "flag", value: 3, dataType: "BOOLEAN", traceId: "t-none" },
        { id: "b", name: "text", value: "", dataType: "TEXT", traceId: "t-none" },
      ],
    });

    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ accepted: 0, rejected: 2 });
    expect(res.body.errors.map((e: { id: string }) => e.id)).toEqual(["a", "b"]);
    const read = await server.request("GET", "/api/public/v3/scores?traceId=t-none");
    expect(read.body.data).toEqual([]);
  });

  it("answers 400 when the body is not an array", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/scores", { body: { name: "a", value: 1 } });

    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Invalid request body: body must be a JSON array");
  });

  it("answers 400 to more than 100 scores in one request", async () => {
    const server = await useDevServer();
    const batch = Array.from({ length: 101 }, (_, i) => ({ name: "n", value: i, traceId: "t" }));

    const res = await server.request("POST", "/api/public/scores", { body: batch });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/at most 100 items per request, got 101/);
  });

  it("reads scores back through Scores v3 with the requested field groups", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/scores", {
      body: [
        {
          id: "s-1",
          name: "helpful",
          value: 1,
          dataType: "BOOLEAN",
          traceId: "t-1",
          observationId: "o-1",
          comment: "nice",
          metadata: { by: "test" },
        },
      ],
    });

    const res = await server.request("GET", "/api/public/v3/scores?id=s-1&fields=details,subject");

    expect(res.body.data).toEqual([
      expect.objectContaining({
        id: "s-1",
        projectId: "dev-project",
        name: "helpful",
        value: true,
        dataType: "BOOLEAN",
        source: "API",
        environment: "default",
        comment: "nice",
        metadata: { by: "test" },
        subject: { kind: "observation", id: "o-1", traceId: "t-1" },
      }),
    ]);
  });

  it("answers 400 to an unknown field group", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/v3/scores?fields=details,everything");

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Unknown field group\(s\) everything/);
  });

  it("pages through scores with the cursor, each score once", async () => {
    const server = await useDevServer();
    const body = Array.from({ length: 7 }, (_, i) => ({ id: `s-${i}`, name: "n", value: i, traceId: "t" }));
    await server.request("POST", "/api/public/scores", { body });

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const query = `limit=3${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await server.request("GET", `/api/public/v3/scores?${query}`);
      seen.push(...res.body.data.map((s: { id: string }) => s.id));
      cursor = res.body.meta.cursor;
      if (!cursor) break;
    }

    expect(seen.sort()).toEqual(body.map((s) => s.id).sort());
  });

  it("filters by name and by experiment id", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/scores", {
      body: [
        { id: "a", name: "accuracy", value: 1, traceId: "t" },
        { id: "b", name: "latency", value: 2, traceId: "t" },
        { id: "c", name: "avg", value: 3, datasetRunId: "exp-1" },
      ],
    });

    const byName = await server.request("GET", "/api/public/v3/scores?name=accuracy,latency");
    const byExperiment = await server.request("GET", "/api/public/v3/scores?experimentId=exp-1");

    expect(byName.body.data.map((s: { id: string }) => s.id).sort()).toEqual(["a", "b"]);
    expect(byExperiment.body.data.map((s: { id: string }) => s.id)).toEqual(["c"]);
  });

  it("deletes a score by id", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/scores", { body: [{ id: "s-1", name: "n", value: 1, traceId: "t" }] });

    const res = await server.request("DELETE", "/api/public/scores/s-1");
    const read = await server.request("GET", "/api/public/v3/scores?id=s-1");

    expect(res.status).toBe(204);
    expect(read.body.data).toEqual([]);
  });
});
