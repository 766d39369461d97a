import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer } from "../support/faults.ts";
import type { Reply, SeenRequest } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const PROMPT = { name: "greeting", version: 1, type: "text", prompt: "Hi {{name}}", labels: [], tags: [], config: {} };

async function client(reply: (req: SeenRequest) => Reply) {
  const server = await faultServer(reply);
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" });
  onTestFinished(() => svc.shutdown());
  return { server, svc };
}

describe("svc.health()", () => {
  it("holds the figures of score delivery, prompt fetches and media downloads, all zero at first", async () => {
    const { svc } = await client(() => ({ status: 200, json: {} }));

    expect(svc.health()).toEqual({
      score: expect.objectContaining({ queued: 0, sent: 0, retries: 0, shutdown: false }),
      prompt: { requests: 0, failures: 0, lastError: undefined, cached: 0, fallbacks: 0 },
      media: { requests: 0, failures: 0, lastError: undefined, unresolved: 0 },
    });
  });

  it("counts prompt fetches, the prompts cached, and a fallback returned after a failed fetch with its status", async () => {
    captureLogs(LogLevel.ERROR);
    const { svc } = await client((req) =>
      req.path === "/api/public/v2/prompts/greeting"
        ? { json: PROMPT }
        : { status: 404, json: { message: "Prompt not found" } },
    );

    await svc.prompt.get("greeting");
    await svc.prompt.get("greeting"); // from the cache: no request
    await svc.prompt.get("missing", { fallback: "Hello" });

    const { prompt } = svc.health();
    expect(prompt).toMatchObject({ requests: 2, failures: 1, cached: 1, fallbacks: 1, lastError: { status: 404 } });
    expect(prompt.lastError?.description).toMatch(/404/);
    expect(prompt.lastError?.at).toMatch(ISO);
  });

  it("counts media downloads and the references left unresolved", async () => {
    captureLogs(LogLevel.ERROR);
    const { svc } = await client(() => ({ status: 404, json: { message: "no media" } }));
    const reference = "@@@svcMedia:type=image/png|id=m-1|source=base64_data_uri@@@";

    const resolved = await svc.media.resolveReferences({ obj: { image: reference }, resolveWith: "base64DataUri" });

    expect(resolved).toEqual({ image: reference });
    expect(svc.health().media).toMatchObject({ requests: 1, failures: 1, unresolved: 1, lastError: { status: 404 } });
  });

  it("says the score delivery shut down after svc.shutdown()", async () => {
    const { svc } = await client(() => ({ status: 200, json: {} }));
    svc.score.create({ name: "accuracy", value: 1 });

    await svc.shutdown();

    expect(svc.health().score).toMatchObject({ sent: 1, queued: 0, shutdown: true });
    expect(svc.health().score.lastSuccessAt).toMatch(ISO);
  });
});
