import { type Context, context, trace } from "@opentelemetry/api";
import { safely, withTraceIdClaim } from "@svc/core";
import type { SvcObservationBase } from "../observation.js";
import { validSpanContext } from "./options.js";

/** The context new observations start in: the active one, re-parented when a parent is given. */
export function parentContext(parentSpanContext: unknown): Context {
  const active = context.active();
  if (parentSpanContext === undefined) return active;
  const valid = validSpanContext(parentSpanContext);
  if (valid === undefined) return active;
  return safely("parentSpanContext", () => trace.setSpanContext(active, valid)) ?? active;
}

/** `parent` with `observation` as active span and the trace-id claim for its trace. */
export function activeContext(parent: Context, observation: SvcObservationBase): Context {
  return (
    safely("activate observation", () =>
      withTraceIdClaim(trace.setSpan(parent, observation.otelSpan), observation.traceId),
    ) ?? parent
  );
}
