import { createHash, randomUUID } from "node:crypto";
import { BadRequestError, NotFoundError, SvcClient, UnauthorizedError } from "@svc/client";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: DevServer;
let svc: SvcClient;

beforeAll(async () => {
  server = await startDevServer({ port: 0 });
  svc = new SvcClient({ baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey });
});
afterAll(() => server.close());

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe("svc.api against the dev server", () => {
  it("reads health and the project", async () => {
    const health = await svc.api.health.health();
    const projects = await svc.api.projects.get();

    expect(health.status).toBe("OK");
    expect(projects.data[0]?.id).toBe("dev-project");
  });

  it("creates scores and reads them back through Scores v3", async () => {
    const traceId = unique("trace");

    const created = await svc.api.scores.create([
      { id: `${traceId}-a`, name: "accuracy", value: 0.75, traceId },
      { id: `${traceId}-b`, name: "verdict", value: "pass", traceId, comment: "ok" },
    ]);
    const read = await svc.api.scores.getMany({ traceId, fields: "details" });

    expect(created).toEqual({ accepted: 2 });
    expect(read.data.map((s) => [s.name, s.value]).sort()).toEqual([
      ["accuracy", 0.75],
      ["verdict", "pass"],
    ]);
  });

  it("returns rejected and errors for a partly invalid score batch", async () => {
    const traceId = unique("trace");

    const result = await svc.api.scores.create([
      { name: "ok", value: 1, traceId },
      { name: "", value: 1, traceId },
    ]);

    expect(result).toEqual({
      accepted: 1,
      rejected: 1,
      errors: [{ index: 1, message: "name must be a non-empty string" }],
    });
  });

  it("creates, reads and relabels prompt versions", async () => {
    const name = unique("prompt");

    await svc.api.prompts.create({ name, prompt: "v1 {{x}}", labels: ["production"] });
    await svc.api.prompts.create({ name, type: "chat", prompt: [{ role: "user", content: "v2 {{x}}" }] });
    const production = await svc.api.prompts.get(name);
    const latest = await svc.api.prompts.get(name, { label: "latest" });
    const updated = await svc.api.promptVersion.update(name, 2, { newLabels: ["production"] });
    const v1 = await svc.api.prompts.get(name, { version: 1 });

    expect(production).toMatchObject({ version: 1, type: "text", prompt: "v1 {{x}}" });
    expect(latest).toMatchObject({ version: 2, type: "chat" });
    expect(updated.labels).toContain("production");
    expect(v1.labels).toEqual([]);
  });

  it("throws NotFoundError for a prompt that does not exist", async () => {
    const error = await svc.api.prompts.get(unique("missing")).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(NotFoundError);
  });

  it("creates a dataset with items and reads them back", async () => {
    const name = unique("dataset");

    const dataset = await svc.api.datasets.create({ name, description: "e2e" });
    const item = await svc.api.datasetItems.create({ datasetName: name, input: { q: "2+2" }, expectedOutput: 4 });
    const byId = await svc.api.datasetItems.get(item.id);
    const list = await svc.api.datasetItems.list({ datasetName: name, page: 1, limit: 10 });
    const byName = await svc.api.datasets.get(name);

    expect(byName.id).toBe(dataset.id);
    expect(byId).toMatchObject({ input: { q: "2+2" }, expectedOutput: 4, datasetId: dataset.id });
    expect(list.meta.totalItems).toBe(1);
  });

  it("uploads media through the upload URL and reads it back", async () => {
    const bytes = Buffer.from(`hello ${randomUUID()}`);
    const sha256Hash = createHash("sha256").update(bytes).digest("base64");

    const { mediaId, uploadUrl } = await svc.api.media.getUploadUrl({
      contentType: "text/plain",
      contentLength: bytes.length,
      sha256Hash,
      field: "input",
      traceId: unique("trace"),
    });
    const put = await fetch(String(uploadUrl), {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: bytes,
    });
    await svc.api.media.patch(mediaId, { uploadedAt: new Date().toISOString(), uploadHttpStatus: put.status });
    const media = await svc.api.media.get(mediaId);
    const content = await fetch(media.url).then((r) => r.text());

    expect(media).toMatchObject({ mediaId, contentType: "text/plain", contentLength: bytes.length });
    expect(content).toBe(bytes.toString());
  });

  it("throws BadRequestError with the server's message for a body that does not fit", async () => {
    const error = await svc.api.datasets.create({ name: 5 } as unknown as { name: string }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).body).toMatchObject({
      message: "Invalid request body: body/name must be string",
    });
  });

  it("throws UnauthorizedError with wrong keys", async () => {
    const stranger = new SvcClient({ baseUrl: server.url, publicKey: "pk-dev", secretKey: "nope" });

    const error = await stranger.api.projects.get().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UnauthorizedError);
  });
});
