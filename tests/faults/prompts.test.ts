import { SvcClient, type SvcClientParams, UnauthorizedError } from "@svc/client";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { downServer, faultServer, RETRY_NOW, SILENT, script, timed } from "../support/faults.ts";
import type { Reply, SeenRequest } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const PROMPT: Reply = {
  status: 200,
  json: { name: "greet", version: 4, type: "text", prompt: "Hello {{name}}", labels: [], tags: [], config: {} },
};
const isPrompt = (req: SeenRequest) => req.path.startsWith("/api/public/v2/prompts/");
const MARGIN_MS = 3_000;
const FALLBACK = { fallback: "Hi {{name}}", fetchTimeoutMs: 1_000, cacheTtlSeconds: 0, type: "text" } as const;

function client(baseUrl: string, params: SvcClientParams = {}) {
  const svc = new SvcClient({ baseUrl, publicKey: "pk-test", secretKey: "sk-test", ...params });
  onTestFinished(() => svc.shutdown());
  return svc;
}

describe("prompt.get through faults", () => {
  it("retries 503 and 429 with Retry-After and returns the fetched prompt", async () => {
    const server = await faultServer(
      script(
        [
          { status: 503, json: {}, headers: RETRY_NOW },
          { status: 429, json: {}, headers: RETRY_NOW },
        ],
        { matches: isPrompt, after: PROMPT },
      ),
    );

    const prompt = await client(server.url).prompt.get("greet", { ...FALLBACK, fetchTimeoutMs: 5_000 });

    expect(prompt).toMatchObject({ version: 4, isFallback: false });
    expect(server.seen.filter(isPrompt)).toHaveLength(3);
  });

  it("returns the prompt after a reset connection", async () => {
    const server = await faultServer(script([{ destroy: true }], { matches: isPrompt, after: PROMPT }));

    const prompt = await client(server.url).prompt.get("greet", { ...FALLBACK, fetchTimeoutMs: 5_000 });

    expect(prompt.isFallback).toBe(false);
  });

  it("returns the fallback within fetchTimeoutMs when the server never answers, and logs it once", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    const svc = client(server.url);

    const first = await timed(() => svc.prompt.get("greet", FALLBACK));
    const second = await timed(() => svc.prompt.get("greet", FALLBACK));

    expect(first.value).toMatchObject({ isFallback: true, prompt: "Hi {{name}}" });
    expect(first.ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(second.ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringMatching(/PromptManager: prompt "greet" could not be fetched, using the fallback: /),
    ]);
  });

  it("returns the fallback within fetchTimeoutMs when the server is down", async () => {
    captureLogs(LogLevel.INFO);
    const down = await downServer(() => PROMPT);

    const { value, ms } = await timed(() => client(down.url).prompt.get("greet", FALLBACK));

    expect(value.isFallback).toBe(true);
    expect(ms).toBeLessThan(1_000 + MARGIN_MS);
  });

  it("waits for a slow server within fetchTimeoutMs", async () => {
    const server = await faultServer(() => ({ ...PROMPT, delayMs: 300 }));

    const prompt = await client(server.url).prompt.get("greet", FALLBACK);

    expect(prompt.isFallback).toBe(false);
  });

  it("follows a 307 or 308 to another path of the same server", async () => {
    for (const status of [307, 308]) {
      const server = await faultServer((req) =>
        isPrompt(req) ? { status, headers: { location: "/moved/greet" } } : PROMPT,
      );

      const prompt = await client(server.url).prompt.get("greet", FALLBACK);

      expect(prompt.isFallback).toBe(false);
      expect(server.seen.map((r) => r.path)).toEqual(["/api/public/v2/prompts/greet", "/moved/greet"]);
    }
  });

  it("returns the fallback at once for an invalid base URL, sending nothing", async () => {
    captureLogs(LogLevel.INFO);

    const { value, ms } = await timed(() => client("::not-a-url").prompt.get("greet", FALLBACK));

    expect(value.isFallback).toBe(true);
    expect(ms).toBeLessThan(MARGIN_MS);
  });

  it("does not retry 401: the fallback with one request, or the typed error with a hint about the keys", async () => {
    captureLogs(LogLevel.INFO);
    const server = await faultServer(() => ({ status: 401, json: { message: "bad keys" } }));
    const svc = client(server.url);

    const fallback = await svc.prompt.get("greet", FALLBACK);
    const error = await svc.prompt.get("greet", { cacheTtlSeconds: 0 }).catch((e: unknown) => e);

    expect(fallback.isFallback).toBe(true);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toMatch(/Status 401 .*bad keys.*[Cc]heck the public and secret keys/);
    expect(server.seen).toHaveLength(2);
  });
});
