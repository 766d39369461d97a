import type { SpanContext, TimeInput } from "@opentelemetry/api";
import { noteUnreadable, RepeatLog, readField } from "@svc/core";

/** Warnings of this package that bad input can repeat on every call: first line of each kind, then counts. */
export const repeats = new RepeatLog();

/** Logs `line` the first time, then counts it. */
export function warnOnce(line: string): void {
  repeats.warn(line, line);
}

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
  const traceId = readField(value, "traceId");
  const spanId = readField(value, "spanId");
  if (typeof traceId !== "string" || typeof spanId !== "string") {
    warnOnce("parentSpanContext ignored: it needs a traceId and a spanId");
    return undefined;
  }
  const traceFlags = readField(value, "traceFlags");
  return {
    traceId,
    spanId,
    traceFlags: typeof traceFlags === "number" ? traceFlags : 1,
    isRemote: readField(value, "isRemote") === true,
    traceState: readField(value, "traceState"),
  };
}

/** Whether `fn` can be called; logs once per caller when it cannot. */
export function isCallable(fn: unknown, what: string): fn is (...args: never[]) => unknown {
  if (typeof fn === "function") return true;
  warnOnce(`${what}: the callback is not a function; nothing was run`);
  return false;
}
