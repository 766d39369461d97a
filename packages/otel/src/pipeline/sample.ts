import { type SpanContext, TraceFlags } from "@opentelemetry/api";
import { traceSampler } from "@svc/core";

/**
 * The sample stage, first when a span starts and when it ends: a span whose trace `sampleRate` leaves out, or that
 * an OpenTelemetry sampler recorded without sampling it, is not stamped, remembered, filtered, queued, masked or
 * sent, only counted. The decision is per trace id, so a trace is kept or left out whole, and the app-root mark of
 * a kept trace is the one it would get without sampling.
 */
export class SampleStage {
  readonly #keepsTrace: (traceId: unknown) => boolean;

  constructor(sampleRate: number) {
    this.#keepsTrace = traceSampler(sampleRate);
  }

  /** Whether the span goes through the pipeline. */
  keeps(context: SpanContext): boolean {
    return (context.traceFlags & TraceFlags.SAMPLED) !== 0 && this.#keepsTrace(context.traceId);
  }
}
