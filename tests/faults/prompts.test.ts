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

  it("gives a caller with a fallback its own fetchTimeoutMs when it joins a fetch already in flight (default cache TTL)", async () => {
    captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    const svc = client(server.url);
    const first = timed(() => svc.prompt.get("greet", { fetchTimeoutMs: 15_000, maxRetries: 0 })).catch(
      (e: unknown) => e,
    );
    const longer = timed(() => svc.prompt.get("greet", { fallback: "Hey", fetchTimeoutMs: 4_000 }));

    const joined = await timed(() => svc.prompt.get("greet", { fallback: "Hi {{name}}", fetchTimeoutMs: 1_000 }));

    expect(joined.value).toMatchObject({ isFallback: true, prompt: "Hi {{name}}" });
    expect(joined.ms).toBeLessThan(1_000 + MARGIN_MS);
    const second = await longer;
    expect(second.value).toMatchObject({ isFallback: true, prompt: "Hey" });
    expect(second.ms).toBeGreaterThanOrEqual(3_900);
    expect(second.ms).toBeLessThan(4_000 + MARGIN_MS);
    // One fetch, shared, and still running for the caller without a fallback.
    expect(server.seen.filter(isPrompt)).toHaveLength(1);
    let settled = false;
    void first.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    await server.close();
    expect(await first).toBeInstanceOf(Error);
  });

  it("returns the fallback within the default 10 s when joining a fetch without a fallback", async () => {
    captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    const svc = client(server.url);
    const first = svc.prompt.get("greet", { fetchTimeoutMs: 30_000, maxRetries: 0 }).catch((e: unknown) => e);

    const joined = await timed(() => svc.prompt.get("greet", { fallback: "Hi {{name}}" }));

    expect(joined.value.isFallback).toBe(true);
    expect(joined.ms).toBeGreaterThanOrEqual(9_900);
    expect(joined.ms).toBeLessThan(10_000 + MARGIN_MS);
    expect(server.seen.filter(isPrompt)).toHaveLength(1);
    await server.close();
    expect(await first).toBeInstanceOf(Error);
  }, 30_000);

  it("aborts a shared fetch once every caller has given up on it, and starts a new one on the next call", async () => {
    captureLogs(LogLevel.INFO);
    const server = await faultServer(SILENT);
    const svc = client(server.url);

    const both = await timed(() =>
      Promise.all([
        svc.prompt.get("greet", { fallback: "a", fetchTimeoutMs: 500 }),
        svc.prompt.get("greet", { fallback: "b", fetchTimeoutMs: 800 }),
      ]),
    );
    server.reply(() => PROMPT);
    const after = await svc.prompt.get("greet", { fallback: "c", fetchTimeoutMs: 2_000 });

    expect(both.value.map((p) => p.prompt)).toEqual(["a", "b"]);
    expect(both.ms).toBeLessThan(800 + MARGIN_MS);
    expect(after).toMatchObject({ isFallback: false, version: 4 });
    expect(server.seen.filter(isPrompt)).toHaveLength(2);
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
