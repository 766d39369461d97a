import { createHash } from "node:crypto";
import { resolveOptions, sampleRateOption, traceSampler } from "@svc/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { keptAtRate } from "../support/sampling.ts";

/** A trace id that looks random but is the same on every run: the first 32 hex characters of a SHA-256. */
function traceIdOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** Whether the sampler for `rate` keeps the trace with this id. */
function isTraceSampledIn(traceId: unknown, rate: number): boolean {
  return traceSampler(rate)(traceId);
}

const hexId = fc.stringMatching(/^[0-9a-f]{32}$/);

describe("trace sampling", () => {
  it("keeps the traces OpenTelemetry Python's TraceIdRatioBased keeps at the same rate", () => {
    // Indices kept, computed with `trace_id & (2**64 - 1) < round(rate * 2**64)` in Python.
    const ids = Array.from({ length: 12 }, (_, i) => traceIdOf(`vector-${i}`));
    const kept = (rate: number) => ids.flatMap((id, i) => (isTraceSampledIn(id, rate) ? [i] : []));

    expect(kept(0.1)).toEqual([]);
    expect(kept(0.5)).toEqual([0, 2, 4, 5, 6, 7, 8]);
    expect(kept(0.9)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("puts the bound at round(rate × 2^64) of the lower 64 bits, whatever the upper ones", () => {
    expect(isTraceSampledIn(`${"f".repeat(16)}7fffffffffffffff`, 0.5)).toBe(true);
    expect(isTraceSampledIn(`${"0".repeat(16)}8000000000000000`, 0.5)).toBe(false);
    expect(isTraceSampledIn(`${"0".repeat(16)}19999999999999ff`, 0.1)).toBe(true);
    expect(isTraceSampledIn(`${"f".repeat(16)}1999999999999a00`, 0.1)).toBe(false);
  });

  it("rounds a bound that falls half-way to the even number, as Python does", () => {
    const low = (n: number) => `${"a".repeat(16)}${n.toString(16).padStart(16, "0")}`;

    // 2.5 rounds to 2 and 1.5 to 2: ids with lower bits 0 and 1 are kept, 2 is not.
    expect([0, 1, 2].map((n) => isTraceSampledIn(low(n), 5 * 2 ** -65))).toEqual([true, true, false]);
    expect([0, 1, 2].map((n) => isTraceSampledIn(low(n), 3 * 2 ** -65))).toEqual([true, true, false]);
  });

  it("agrees with the rule written out in BigInt for any id and rate", () => {
    fc.assert(
      fc.property(hexId, fc.double({ min: 0, max: 1, noNaN: true }), (id, rate) => {
        expect(traceSampler(rate)(id)).toBe(rate >= 1 || keptAtRate(id, rate));
      }),
    );
  });

  it("keeps a trace at every rate above one it is kept at", () => {
    fc.assert(
      fc.property(
        hexId,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (id, a, b) => {
          const [low, high] = a < b ? [a, b] : [b, a];
          if (isTraceSampledIn(id, low)) expect(isTraceSampledIn(id, high)).toBe(true);
        },
      ),
    );
  });

  it("reads upper-case ids as their lower-case form", () => {
    const id = traceIdOf("case");

    for (const rate of [0.2, 0.5, 0.8])
      expect(isTraceSampledIn(id.toUpperCase(), rate)).toBe(isTraceSampledIn(id, rate));
  });

  it("keeps every trace at rate 1 and none at rate 0", () => {
    const ids = Array.from({ length: 100 }, (_, i) => traceIdOf(`all-or-none-${i}`));

    expect(ids.every((id) => isTraceSampledIn(id, 1))).toBe(true);
    expect(ids.some((id) => isTraceSampledIn(id, 0))).toBe(false);
  });

  it("always keeps an id that no span carries: not 32 hex characters, or not a string", () => {
    for (const id of ["trace-1", "0af7651916cd43dd8448eb211c80319", "z".repeat(32), 42, undefined, null])
      expect(isTraceSampledIn(id, 0)).toBe(true);
  });

  it("keeps a share of 10,000 ids within 1.5 percentage points of the rate", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => traceIdOf(`share-${i}`));

    for (const rate of [0.01, 0.1, 0.25, 0.5, 0.9]) {
      const keeps = traceSampler(rate);
      const share = ids.filter((id) => keeps(id)).length / ids.length;
      expect(Math.abs(share - rate)).toBeLessThan(0.015);
    }
  });
});

describe("sampleRate option", () => {
  it("reads the option, then SVC_SAMPLE_RATE, then 1", () => {
    const specs = { sampleRate: sampleRateOption() };

    expect(resolveOptions("C", specs, { sampleRate: 0.2 }, { SVC_SAMPLE_RATE: "0.7" }).sampleRate).toBe(0.2);
    expect(resolveOptions("C", specs, {}, { SVC_SAMPLE_RATE: "0.7" }).sampleRate).toBe(0.7);
    expect(resolveOptions("C", specs, {}, {}).sampleRate).toBe(1);
    expect(resolveOptions("C", specs, { sampleRate: 0 }, {}).sampleRate).toBe(0);
  });

  it("falls through a rate outside 0 to 1 to the next setting with one warning naming it", () => {
    const logs = captureLogs();
    const specs = { sampleRate: sampleRateOption() };

    const resolved = resolveOptions("C", specs, { sampleRate: 1.5 }, { SVC_SAMPLE_RATE: "half" });

    expect(resolved.sampleRate).toBe(1);
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringContaining("option sampleRate=1.5 is not a number >= 0 <= 1"),
      expect.stringContaining('ignoring SVC_SAMPLE_RATE="half"'),
    ]);
  });
});
