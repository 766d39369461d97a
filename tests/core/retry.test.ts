import { isRetryableStatus, parseRetryAfter, retryDelayMs } from "@svc/core";
import { describe, expect, it } from "vitest";

describe("retry policy", () => {
  it("retries 408, 429 and 5xx and no other status", () => {
    const retryable = [200, 400, 401, 403, 404, 405, 408, 409, 413, 418, 422, 429, 500, 503, 599].filter(
      isRetryableStatus,
    );

    expect(retryable).toEqual([408, 429, 500, 503, 599]);
  });

  it("reads Retry-After as seconds, fractions included", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
  });

  it("reads Retry-After as an HTTP date relative to now, and a past date as no wait", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");

    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  });

  it("caps a Retry-After at 60 s and ignores an unreadable one", () => {
    expect(parseRetryAfter("3600")).toBe(60_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
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
