import { describe, expect, it } from "vitest";
import { isRetryableStatus, retryAfterMs, retryDelayMs } from "../../packages/client/src/api/retry.ts";

const headers = (retryAfter: string) => new Headers({ "retry-after": retryAfter });

describe("retry timing", () => {
  it("retries 408, 409, 429 and 5xx and no other status", () => {
    const retryable = [200, 400, 401, 403, 404, 405, 408, 409, 418, 422, 429, 500, 503, 599].filter(isRetryableStatus);

    expect(retryable).toEqual([408, 409, 429, 500, 503, 599]);
  });

  it("reads Retry-After as seconds, fractions included", () => {
    expect(retryAfterMs(headers("2"))).toBe(2000);
    expect(retryAfterMs(headers("0.5"))).toBe(500);
  });

  it("reads Retry-After as an HTTP date relative to now, and a past date as no wait", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");

    expect(retryAfterMs(headers("Thu, 01 Jan 2026 00:00:07 GMT"), now)).toBe(7000);
    expect(retryAfterMs(headers("Wed, 31 Dec 2025 23:59:00 GMT"), now)).toBe(0);
  });

  it("falls back to exponential backoff when Retry-After is unreadable", () => {
    expect(retryAfterMs(headers("soon"))).toBeUndefined();
    expect(retryDelayMs(headers("soon"), 2, 100, () => 0.5)).toBe(400);
  });

  it("keeps the jittered backoff within ±25 % of base × 2^attempt and under 60 s", () => {
    expect(retryDelayMs(undefined, 0, 1000, () => 0)).toBe(750);
    expect(retryDelayMs(undefined, 1, 1000, () => 0.999_999)).toBe(2500);
    expect(retryDelayMs(undefined, 20, 1000, () => 0.999_999)).toBe(60_000);
  });
});
