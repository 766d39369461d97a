// The span shape the processor reads lives in the core, with the OTLP encoders that read it.
import type { ReadableSpan } from "@svc/core";

export type { ReadableSpan };

/** The name of the instrumentation scope that made a span (`instrumentationLibrary` on OpenTelemetry 1.x). */
export function scopeName(span: ReadableSpan): string {
  return span.instrumentationScope?.name ?? span.instrumentationLibrary?.name ?? "";
}
