import { httpRequest, retryDelayMs } from "@svc/core";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Reply, startServer } from "../support/http-server.ts";
import { recordRetryWaits } from "../support/retry-waits.ts";

/** A call that the server answers with `first`, then with 200; resolves to the waits between its attempts. */
async function waitsAfter(first: Reply): Promise<number[]> {
  let calls = 0;
  const server = await startServer(() => (++calls === 1 ? first : { status: 200 }));
  onTestFinished(() => server.close());
  const delays = recordRetryWaits();
  await httpRequest({ method: "GET", url: server.url, headers: {}, attemptTimeoutMs: 5000, maxRetries: 1 });
  return delays;
}

describe("retry policy", () => {
  it("retries 408, 429 and 5xx and no other status", async () => {
    const statuses = [200, 400, 401, 403, 404, 405, 408, 409, 413, 418, 422, 429, 500, 503, 599];
    const retried: number[] = [];
    for (const status of statuses) if ((await waitsAfter({ status })).length > 0) retried.push(status);

    expect(retried).toEqual([408, 429, 500, 503, 599]);
  });

  it("reads Retry-After as seconds, fractions included", async () => {
    expect(await waitsAfter({ status: 503, headers: { "retry-after": "2" } })).toEqual([2000]);
    expect(await waitsAfter({ status: 503, headers: { "retry-after": "0.5" } })).toEqual([500]);
  });

  it("reads Retry-After as an HTTP date relative to now, and a past date as no wait", async () => {
    const inSeven = new Date(Date.now() + 7000).toUTCString();
    const [wait] = await waitsAfter({ status: 503, headers: { "retry-after": inSeven } });

    expect(wait).toBeGreaterThan(5000);
    expect(wait).toBeLessThanOrEqual(7000);
    expect(await waitsAfter({ status: 503, headers: { "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" } })).toEqual([0]);
  });

  it("caps a Retry-After at 60 s and ignores an unreadable one", async () => {
    expect(await waitsAfter({ status: 503, headers: { "retry-after": "3600" } })).toEqual([60_000]);
    // Without a readable Retry-After, the first step of the backoff: 1 s ± 25 %.
    for (const headers of [{ "retry-after": "soon" }, {}] as Record<string, string>[]) {
      const [wait] = await waitsAfter({ status: 503, headers });
      expect(wait).toBeGreaterThanOrEqual(750);
      expect(wait).toBeLessThanOrEqual(1250);
    }
  });

  it("uses the server's Retry-After when given, else jittered exponential backoff", () => {
    expect(retryDelayMs(3, 1234)).toBe(1234);
    expect(retryDelayMs(2, undefined, { baseMs: 100, random: () => 0.5 })).toBe(400);
  });

  it("keeps the jittered backoff within ±25 % of base × 2^attempt and under the 30 s cap", () => {
    expect(retryDelayMs(0, undefined, { random: () => 0 })).toBe(750);
    expect(retryDelayMs(1, undefined, { random: () => 0.999_999 })).toBe(2500);
    expect(retryDelayMs(20, undefined, { random: () => 0.999_999 })).toBe(30_000);
  });
});
