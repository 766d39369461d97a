import { numberOption, type OptionSpec } from "../config/options.js";

/**
 * Trace sampling by trace id: one pure function of the id's bits, so every process and every service that sees the
 * same trace id at the same rate makes the same decision, with nothing shared between them. A trace is kept when the
 * lower 64 bits of its id, read as an unsigned number, are below `rate × 2^64` (rounded half to even): the rule of
 * OpenTelemetry Python's `TraceIdRatioBased` sampler, so a Python service sampling at the same rate agrees.
 * Keeping is nested: a trace kept at one rate is kept at every higher rate.
 */

const TRACE_ID = /^[0-9a-f]{32}$/i;
const ALL_KEPT = (): boolean => true;

/** `rate` as a number: a fraction of traces from 0 (none) to 1 (all). */
export type SampleRate = number;

/** `sampleRate` of the span processor and the client: from the option, then SVC_SAMPLE_RATE, then 1 (every trace). */
export function sampleRateOption(): OptionSpec<SampleRate> {
  return numberOption(1, { min: 0, minInclusive: true, max: 1, env: ["SVC_SAMPLE_RATE"] });
}

/**
 * A decision function for one rate: whether the trace with this id is kept. The bound is computed once, so each
 * decision is a string comparison. An id that is not 32 hex characters (no OpenTelemetry span carries one) is
 * always kept.
 */
export function traceSampler(rate: SampleRate): (traceId: unknown) => boolean {
  if (!(rate < 1)) return ALL_KEPT;
  const bound = lowBitsBound(rate);
  if (bound === undefined) return ALL_KEPT;
  return (traceId) => {
    if (typeof traceId !== "string" || !TRACE_ID.test(traceId)) return true;
    // Lower-case hex strings of one length sort as the numbers they spell.
    return traceId.slice(16).toLowerCase() < bound;
  };
}

/** `round(rate × 2^64)` as 16 lower-case hex digits; undefined when it reaches 2^64 (every trace kept). */
function lowBitsBound(rate: number): string | undefined {
  const bound = roundHalfEven(Math.max(0, rate) * 2 ** 64);
  if (bound >= 2 ** 64) return undefined;
  return BigInt(bound).toString(16).padStart(16, "0");
}

/** Rounds to the nearest integer, ties to the even one, as Python's `round()` does. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest > 0.5) return floor + 1;
  if (rest < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
