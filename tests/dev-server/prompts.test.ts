import { describe, expect, it } from "vitest";
import { type TestDevServer, useDevServer } from "../support/dev-server.ts";

async function create(server: TestDevServer, body: Record<string, unknown>) {
  const res = await server.request("POST", "/api/public/v2/prompts", { body: { name: "greeting", ...body } });
  expect(res.status).toBe(200);
  return res.body;
}

describe("dev server: prompts", () => {
  it("numbers versions from 1 and keeps the latest label on the newest", async () => {
    const server = await useDevServer();

    const first = await create(server, { prompt: "Hi {{name}}" });
    const second = await create(server, { prompt: "Hello {{name}}" });
    const v1 = await server.request("GET", "/api/public/v2/prompts/greeting?version=1");

    expect(first).toMatchObject({ version: 1, type: "text", labels: ["latest"] });
    expect(second).toMatchObject({ version: 2, labels: ["latest"] });
    expect(v1.body.labels).toEqual([]);
  });

  it("reads the production version when neither version nor label is given", async () => {
    const server = await useDevServer();
    await create(server, { prompt: "one", labels: ["production"] });
    await create(server, { prompt: "two" });

    const res = await server.request("GET", "/api/public/v2/prompts/greeting");

    expect(res.body).toMatchObject({ version: 1, prompt: "one", labels: ["production"] });
  });

  it("answers 404 naming the label when no version has it", async () => {
    const server = await useDevServer();
    await create(server, { prompt: "one" });

    const res = await server.request("GET", "/api/public/v2/prompts/greeting?label=staging");

    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Prompt not found: 'greeting' with label 'staging'");
  });

  it("stores chat prompts with message and placeholder items", async () => {
    const server = await useDevServer();

    const created = await create(server, {
      type: "chat",
      prompt: [
        { role: "system", content: "Be brief" },
        { type: "placeholder", name: "history" },
      ],
    });

    expect(created.prompt).toEqual([
      { role: "system", content: "Be brief", type: "chatmessage" },
      { type: "placeholder", name: "history" },
    ]);
  });

  it("moves a label to the version it is set on", async () => {
    const server = await useDevServer();
    await create(server, { prompt: "one", labels: ["production"] });
    await create(server, { prompt: "two" });

    const res = await server.request("PATCH", "/api/public/v2/prompts/greeting/versions/2", {
      body: { newLabels: ["production"] },
    });
    const v1 = await server.request("GET", "/api/public/v2/prompts/greeting?version=1");

    expect(res.body.labels.sort()).toEqual(["latest", "production"]);
    expect(v1.body.labels).toEqual([]);
  });

  it("answers 400 when a client sets the reserved latest label", async () => {
    const server = await useDevServer();
    await create(server, { prompt: "one" });

    const res = await server.request("PATCH", "/api/public/v2/prompts/greeting/versions/1", {
      body: { newLabels: ["latest"] },
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/"latest" is reserved/);
  });

  it("reads prompts whose name has a folder path", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/v2/prompts", {
      body: { name: "team/support/greeting", prompt: "hi", labels: ["production"] },
    });

    const res = await server.request("GET", `/api/public/v2/prompts/${encodeURIComponent("team/support/greeting")}`);

    expect(res.body).toMatchObject({ name: "team/support/greeting", version: 1 });
  });
});
