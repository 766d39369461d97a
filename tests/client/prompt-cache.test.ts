import { SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer } from "../support/http-server.ts";

const PROMPT = { name: "greet", version: 3, type: "text", prompt: "Hi", labels: ["production"], tags: [], config: {} };
/**
 * How long a running fetch is shared: longer than any fetch's own deadline (10 s attempts, 2 retries and their
 * backoff), so only a fetch the runtime will never settle outlives it.
 */
const SHARED_FOR_MS = 60_000;

describe("prompt fetches shared by concurrent get() calls", () => {
  it("shares a running fetch, and stops sharing one that has outlived every fetch's deadline", async () => {
    // Only the clock is fake: the minute passes without waiting, the requests are real.
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const server = await startServer((req) =>
      req.path.startsWith("/api/public/v2/prompts/") ? { json: { ...PROMPT, name: req.path.slice(23) } } : {},
    );
    onTestFinished(server.close);
    let calls = 0;
    let firstCall: () => void = () => undefined;
    const firstCalled = new Promise<void>((resolve) => (firstCall = resolve));
    // The application's fetch. Its first call never settles, as a fetch an ended request left running on Cloudflare
    // Workers; the others go to the server.
    const appFetch: typeof fetch = (input, init) => {
      calls += 1;
      if (calls > 1) return fetch(input, init);
      firstCall();
      return new Promise<Response>(() => {});
    };
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk", fetch: appFetch });
    const stuck: Promise<unknown>[] = [];
    // These wait on the fetch that never settles; they end when its own deadline passes, after the test.
    const get = () => stuck.push(svc.prompt.get("greet").catch(() => undefined));

    get();
    get();
    await firstCalled;
    vi.setSystemTime(Date.now() + SHARED_FOR_MS);
    get();
    // A fetch of another prompt, through the same client: had one of the calls above started a fetch of its own, it
    // would have been called before this one's answer came back.
    await svc.prompt.get("other");
    expect(calls).toBe(2);
    vi.setSystemTime(Date.now() + 1);
    const fresh = [svc.prompt.get("greet"), svc.prompt.get("greet"), svc.prompt.get("greet")];
    const prompts = await Promise.all(fresh);

    expect(prompts.map((p) => p.version)).toEqual([3, 3, 3]);
    // The one that took over is shared by the last three calls.
    expect(calls).toBe(3);
    expect(server.seen.filter((r) => r.path === "/api/public/v2/prompts/greet")).toHaveLength(1);
  });
});
