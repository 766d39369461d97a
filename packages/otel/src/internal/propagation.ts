import type { Attributes, Context } from "@opentelemetry/api";

// Placeholder until @svc/tracing exports getPropagatedAttributes and hasTraceIdClaim.
export function getPropagatedAttributes(_context: Context): Attributes {
  return {};
}

export function hasTraceIdClaim(_context: Context, _traceId: string): boolean {
  return false;
}
