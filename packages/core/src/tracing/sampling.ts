import { numberOption, type OptionSpec } from "../config/options.js";

// Trace sampling by trace id, so every process that sees a trace id at one rate decides alike: kept when the lower 64
// bits of the id are below `rate × 2^64` (rounded half to even), the rule of OpenTelemetry Python's
// `TraceIdRatioBased`. A trace kept at one rate is kept at every higher rate.

const TRACE_ID = /^[0-9a-f]{32}$/i;
const ALL_KEPT = (): boolean => true;

/** `sampleRate` of the span processor and the client: from the option, then SVC_SAMPLE_RATE, then 1 (every trace). */
export function sampleRateOption(): OptionSpec<number> {
  return numberOption(1, { min: 0, minInclusive: true, max: 1, env: ["SVC_SAMPLE_RATE"] });
}

/** Whether the trace with this id is kept at `rate` (0 to 1, compared as text); any id not of 32 hex digits is. */
export function traceSampler(rate: number): (traceId: unknown) => boolean {
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
