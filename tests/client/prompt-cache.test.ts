import { describe, expect, it } from "vitest";
import { MAX_SHARED_FETCH_MS, PromptCache } from "../../packages/client/src/prompt/prompt-cache.ts";
import type { PromptClient } from "../../packages/client/src/prompt/prompt-clients.ts";

describe("PromptCache.once", () => {
  it("shares a running fetch, and stops sharing one that has outlived every fetch's deadline", async () => {
    let now = 1_000_000;
    const cache = new PromptCache(10, () => now);
    const key = PromptCache.key("greet", undefined, undefined);
    let started = 0;
    // A fetch that never settles, as one left running by an earlier request on Cloudflare Workers.
    const never = () => {
      started += 1;
      return new Promise<PromptClient>(() => {});
    };

    void cache.once(key, never);
    void cache.once(key, never);
    expect(started).toBe(1);

    now += MAX_SHARED_FETCH_MS;
    void cache.once(key, never);
    expect(started).toBe(1);

    now += 1;
    const answer = { name: "greet" } as unknown as PromptClient;
    const fresh = cache.once(key, async () => {
      started += 1;
      return answer;
    });
    expect(started).toBe(2);
    await expect(fresh).resolves.toBe(answer);

    // The fetch that took over is shared in its turn while it runs.
    void cache.once(key, never);
    void cache.once(key, never);
    expect(started).toBe(3);
  });
});
