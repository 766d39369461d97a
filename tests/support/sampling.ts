/**
 * Whether a trace is kept at `rate`, by the rule written out with BigInt (OpenTelemetry's TraceIdRatioBased): the
 * lower 64 bits of the id below round(rate × 2^64), ties to even.
 */
export function keptAtRate(traceId: string, rate: number): boolean {
  const x = rate * 2 ** 64;
  const floor = Math.floor(x);
  const bound = x - floor > 0.5 || (x - floor === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return BigInt(`0x${traceId.slice(16)}`) < BigInt(bound);
}
