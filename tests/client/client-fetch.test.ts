import { SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";

const PROMPT = { name: "greeting", version: 1, type: "text", prompt: "Hi {{name}}", labels: [], tags: [], config: {} };
const TRACE_ID = "0123456789abcdef0123456789abcdef";

/** A server for prompts, scores and one media file. */
async function server(): Promise<TestServer> {
  let url = "";
  const started = await startServer((req) => {
    if (req.path === "/api/public/v2/prompts/greeting") return { json: PROMPT };
    if (req.path === "/api/public/media/m-1")
      return { json: { mediaId: "m-1", contentType: "text/plain", url: `${url}/files/m-1` } };
    if (req.path === "/files/m-1") return { text: "hello" };
    return { status: 200, json: {} };
  });
  url = started.url;
  onTestFinished(started.close);
  return started;
}

describe("the fetch option of SvcClient", () => {
  it("sends every request of the client through the given fetch: REST, prompts, scores and media downloads", async () => {
    const srv = await server();
    const seen: string[] = [];
    // The application's fetch: here one that notes each request and passes it on.
    const appFetch: typeof fetch = (input, init) => {
      seen.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    };
    const svc = new SvcClient({ baseUrl: srv.url, publicKey: "pk", secretKey: "sk", fetch: appFetch });
    onTestFinished(() => svc.shutdown());

    const prompt = await svc.prompt.get("greeting");
    await svc.api.projects.get();
    svc.score.create({ name: "accuracy", value: 1, traceId: TRACE_ID });
    await svc.flush();
    const ref = "@@@svcMedia:type=text/plain|id=m-1|source=base64_data_uri@@@";
    const resolved = await svc.media.resolveReferences({ obj: { file: ref }, resolveWith: "base64DataUri" });

    expect(prompt.compile({ name: "Ada" })).toBe("Hi Ada");
    expect(resolved).toEqual({ file: `data:text/plain;base64,${Buffer.from("hello").toString("base64")}` });
    expect(seen.sort()).toEqual(
      [
        "GET /api/public/v2/prompts/greeting",
        "GET /api/public/projects",
        "POST /api/public/scores",
        "GET /api/public/media/m-1",
        "GET /files/m-1",
      ].sort(),
    );
    expect(srv.seen.map((r) => `${r.method} ${r.path}`).sort()).toEqual(seen.sort());
  });

  it("is what a test that stubbed globalThis.fetch under the previous major passes instead: the stub answers", async () => {
    const answers: typeof fetch = async (input) =>
      String(input).endsWith("/api/public/v2/prompts/greeting")
        ? new Response(JSON.stringify({ ...PROMPT, prompt: "Hello from the stub" }), {
            headers: { "content-type": "application/json" },
          })
        : new Response("{}", { status: 404 });
    const svc = new SvcClient({ baseUrl: "http://svc.invalid", publicKey: "pk", secretKey: "sk", fetch: answers });

    const prompt = await svc.prompt.get("greeting");

    expect(prompt.prompt).toBe("Hello from the stub");
  });
});
