import { isSpanContextValid, type Span, type SpanContext } from "@opentelemetry/api";
import { getGlobalLogger, loggerGeneration } from "../log/logger.js";
import { globalSlot } from "../log/slot.js";
import type { OtlpProtocol } from "../otlp/encode.js";
import type { DeliveryHealth } from "../queue/batch-queue.js";

/**
 * Whether an `SvcSpanProcessor` sees the spans svc starts. The processor counts every span start it is given; the
 * tracing package compares the count before and after it starts a span (`startSpan` calls `onStart` synchronously),
 * so it knows, per span and at the cost of a counter, that no provider with the processor recorded it.
 */
interface PresenceState {
  starts: number;
  /** Logger generation of the last warning: one warning per logger configuration. */
  warnedGeneration: number;
}

const state = globalSlot<PresenceState>(
  { name: "svc.processor-presence", version: 1, holds: "count of span starts seen by span processors" },
  () => ({ starts: 0, warnedGeneration: -1 }),
);

/** What a span processor tells the doctor about itself: where it sends, how, and what it has done. */
export interface ProcessorProbe {
  /** The OTLP endpoint, or a note that a custom exporter sends the spans. */
  readonly endpoint: string;
  readonly compression: "gzip" | "none";
  readonly protocol: OtlpProtocol;
  readonly publicKey: string | undefined;
  /** Why no span can be sent at all (no keys, an invalid base URL), or undefined. */
  readonly cannotSend: string | undefined;
  health(): DeliveryHealth;
  /** Span starts this processor was given, shut down or not; grows only. */
  starts(): number;
  /**
   * Whether the processor saw this span start and expects to export it; it then forgets the span, which the caller
   * promises never to end (a probe span of the doctor).
   */
  claims(span: SpanContext): boolean;
}

// Held weakly: a processor that is garbage collected leaves the list.
const probes = globalSlot<{ set: Set<WeakRef<ProcessorProbe>> }>(
  { name: "svc.processor-probes", version: 1, holds: "list of span processors for the doctor" },
  () => ({ set: new Set() }),
);

/** Lists a processor for the doctor; keep `probe` as long as the processor. */
export function registerProcessorProbe(probe: ProcessorProbe): void {
  probes().set.add(new WeakRef(probe));
}

/** The span processors of the process (every copy of the SDK), oldest first. */
export function processorProbes(): ProcessorProbe[] {
  const out: ProcessorProbe[] = [];
  for (const ref of probes().set) {
    const probe = ref.deref();
    if (probe === undefined) probes().set.delete(ref);
    else out.push(probe);
  }
  return out;
}

/** Called by `SvcSpanProcessor.onStart` for every span start. */
export function countProcessorStart(): void {
  state().starts++;
}

/** Span starts seen by every `SvcSpanProcessor` of the process so far. */
export function processorStarts(): number {
  return state().starts;
}

/**
 * Logs, once, that the observation `name` (whose span no `SvcSpanProcessor` saw start) does not reach svc, and how
 * to fix it. A span that a sampler left unrecorded under a real provider is not reported: it is meant to go nowhere.
 */
export function warnUnprocessedObservation(name: string, span: Span): void {
  const s = state();
  const generation = loggerGeneration();
  if (s.warnedGeneration === generation) return;
  const recording = span.isRecording();
  if (!recording && isSpanContextValid(span.spanContext())) return; // sampled out
  s.warnedGeneration = generation;
  const fix =
    "Register a tracer provider with the svc span processor when the app starts, for example " +
    "new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] }).start(), or pass such a provider to " +
    "setSvcTracerProvider(). (If you send svc spans with an exporter of your own, ignore this line.)";
  getGlobalLogger().warn(
    recording
      ? `observation "${name}" was recorded by a tracer provider without SvcSpanProcessor: it and later observations do not reach svc. ${fix}`
      : `observation "${name}" was started while no OpenTelemetry tracer provider is registered: it and later observations are not recorded and do not reach svc. ${fix}`,
  );
}
