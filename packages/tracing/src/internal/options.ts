import type { SpanContext, TimeInput } from "@opentelemetry/api";
import { noteUnreadable, readField } from "@svc/core";
import { repeats } from "./repeats.js";

/** A start or end time as OpenTelemetry accepts it (a valid Date, a finite number, an HrTime), else undefined. */
export function validTime(value: unknown, what: string): TimeInput | undefined {
  if (value === undefined) return undefined;
  try {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    if (Array.isArray(value) && value.length === 2 && Number.isFinite(value[0]) && Number.isFinite(value[1]))
      return [value[0] as number, value[1] as number];
  } catch (error) {
    noteUnreadable(error);
  }
  const kind = `${what}: invalid time ignored; using now`;
  repeats.warn(kind, `${kind} (expected a Date, epoch milliseconds or an HrTime)`);
  return undefined;
}

/** A parent span context with a trace id and a span id, else undefined (logged). */
export function validSpanContext(value: unknown): SpanContext | undefined {
  if (value === undefined) return undefined;
  const traceId = readField(value, "traceId");
  const spanId = readField(value, "spanId");
  const traceFlags = readField(value, "traceFlags");
  if (typeof traceId === "string" && typeof spanId === "string")
    return {
      traceId,
      spanId,
      traceFlags: typeof traceFlags === "number" ? traceFlags : 1,
      isRemote: readField(value, "isRemote") === true,
      traceState: readField(value, "traceState"),
    };
  const kind = "parentSpanContext ignored: it needs a traceId and a spanId";
  repeats.warn(kind, kind);
  return undefined;
}

/** Whether `fn` can be called; logs once per caller when it cannot. */
export function isCallable(fn: unknown, what: string): fn is (...args: never[]) => unknown {
  if (typeof fn === "function") return true;
  const kind = `${what}: the callback is not a function; nothing was run`;
  repeats.warn(kind, kind);
  return false;
}
