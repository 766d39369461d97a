import {
  DatasetManager,
  MediaManager,
  PromptManager,
  ScoreManager,
  SvcApi,
  SvcApiClient,
  SvcClient,
} from "@svc/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Reply, type SeenRequest, startServer } from "../support/http-server.ts";

async function setup(reply: (req: SeenRequest) => Reply = () => ({ json: { data: [{ id: "proj-1" }] } })) {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  return { server, svc: new SvcClient({ baseUrl: `${server.url}/`, publicKey: "pk", secretKey: "sk" }) };
}

describe("SvcClient", () => {
  it("offers the prompt, score, dataset and media managers and the REST client", () => {
    const svc = new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk" });
    expect(svc.prompt).toBeInstanceOf(PromptManager);
    expect(svc.score).toBeInstanceOf(ScoreManager);
    expect(svc.dataset).toBeInstanceOf(DatasetManager);
    expect(svc.media).toBeInstanceOf(MediaManager);
    expect(typeof svc.api.scores.create).toBe("function");
  });

  it("makes svc.api an SvcApiClient, also under the class's deprecated 6.0 name SvcApi", () => {
    const svc = new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk" });

    expect(svc.api).toBeInstanceOf(SvcApiClient);
    expect(svc.api).toBeInstanceOf(SvcApi);
    expect(svc.api.constructor.name).toBe("SvcApiClient");
  });

  it("fetches the project id once from GET /api/public/projects and caches it", async () => {
    const { server, svc } = await setup();
    expect(await Promise.all([svc.getProjectId(), svc.getProjectId()])).toEqual(["proj-1", "proj-1"]);
    expect(await svc.getProjectId()).toBe("proj-1");
    expect(server.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/public/projects"]);
  });

  it("tries again after a failed project lookup", async () => {
    const { server, svc } = await setup(() => ({ status: 401, json: { message: "bad keys" } }));
    await expect(svc.getProjectId()).rejects.toMatchObject({ statusCode: 401 });
    server.reply(() => ({ json: { data: [{ id: "proj-2" }] } }));
    expect(await svc.getProjectId()).toBe("proj-2");
  });

  it("rejects when the server lists no project", async () => {
    const { svc } = await setup(() => ({ json: { data: [] } }));
    await expect(svc.getProjectId()).rejects.toThrow(/no project/);
  });

  it("builds trace and experiment links from the base URL and the project id", async () => {
    const { server, svc } = await setup();
    expect(await svc.getTraceUrl("abc")).toBe(`${server.url}/project/proj-1/traces/abc`);
    expect(await svc.getExperimentUrl("exp-1")).toBe(`${server.url}/project/proj-1/experiments/results?baseline=exp-1`);
  });

  it("sends queued scores on flush() and shutdown()", async () => {
    const { server, svc } = await setup(() => ({ json: {} }));
    svc.score.create({ name: "a", value: 1 });
    await svc.flush();
    svc.score.create({ name: "b", value: 2 });
    await svc.shutdown();
    const names = server.seen.flatMap((r) => (r.json as Array<{ name: string }>).map((s) => s.name));
    expect(names).toEqual(["a", "b"]);
  });

  it.each([
    "getPrompt",
    "createPrompt",
    "updatePrompt",
    "getDataset",
    "createDatasetItem",
    "resolveMediaReferences",
    "createDataset",
    "getDatasetItem",
    "fetchMedia",
    "fetchTrace",
    "fetchTraces",
    "fetchObservation",
    "fetchObservations",
    "fetchSessions",
    "getDatasetRun",
    "getDatasetRuns",
  ])("has no removed top-level alias %s", (name) => {
    const svc = new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk" });
    expect(name in svc).toBe(false);
    expect((svc as unknown as Record<string, unknown>)[name]).toBeUndefined();
  });
});
