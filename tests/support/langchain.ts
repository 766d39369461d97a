import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { expect } from "vitest";

/** A string attribute of a span parsed as JSON. */
export function jsonAttribute(span: ReadableSpan, key: string): unknown {
  const value = span.attributes[key];
  if (typeof value !== "string") throw new Error(`span "${span.name}" has no string attribute ${key}`);
  return JSON.parse(value);
}

/** The observation type recorded on a span. */
export function typeOf(span: ReadableSpan): unknown {
  return span.attributes[A.OBSERVATION_TYPE];
}

/** Milliseconds since the epoch of an OpenTelemetry high-resolution time. */
export function hrToMs([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}

/** Asserts every span belongs to one trace and returns its id. */
export function singleTraceId(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanContext().traceId));
  expect(ids.size).toBe(1);
  return [...ids][0]!;
}
