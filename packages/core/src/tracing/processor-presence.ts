import {
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  TraceFlags,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { liveRefs } from "../lifecycle/exit-hooks.js";
import { getGlobalLogger, loggerGeneration } from "../log/logger.js";
import type { OtlpProtocol } from "../otlp/encode.js";
import type { DeliveryHealth } from "../queue/health.js";
import { shared } from "../registry.js";
import { randomHex } from "./ids.js";
import { getSvcTracer } from "./tracer-provider.js";

/** Span starts the processors saw, compared around each start (`startSpan` calls `onStart` synchronously). */
interface PresenceState {
  starts: number;
  /** Logger generation of the last warning: one warning per logger configuration. */
  warnedGeneration: number;
  /** What is known of the provider behind each svc tracer: whether a SvcSpanProcessor sees its spans. */
  readonly verdicts: WeakMap<Tracer, "with" | "without">;
  /** Probes made of a tracer that left the question open (its sampler records no span at all). */
  readonly probes: WeakMap<Tracer, number>;
}

/** Most probes of one tracer whose sampler never records: after them the question stays open, without a warning. */
const MAX_PROBES = 5;

const state = shared<PresenceState>("processor-presence", () => ({
  starts: 0,
  warnedGeneration: -1,
  verdicts: new WeakMap(),
  probes: new WeakMap(),
}));

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
  /** Spans the export filter left out, and by scope those that look like model calls (not in earlier versions). */
  filteredOut?(): { spans: number; modelCallScopes: Record<string, number> };
  /** Span starts this processor was given, shut down or not; grows only. */
  starts(): number;
  /**
   * Whether the processor saw this span start and expects to export it; it then drops the span (a probe) without
   * exporting it.
   */
  claims(span: SpanContext): boolean;
}

// Held weakly: a processor that is garbage collected leaves the list.
const probes = shared<{ set: Set<WeakRef<ProcessorProbe>> }>("processor-probes", () => ({ set: new Set() }));

/** Lists a processor for the doctor; keep `probe` as long as the processor. */
export function registerProcessorProbe(probe: ProcessorProbe): void {
  probes().set.add(new WeakRef(probe));
}

/** The span processors of the process (every copy of the SDK), oldest first. */
export function processorProbes(): ProcessorProbe[] {
  return liveRefs(probes().set);
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
 * Logs, once per logger configuration, that the observation `name` (no `SvcSpanProcessor` saw it start) does not
 * reach svc, and the fix; not for a span left out by the sampler of a provider with a `SvcSpanProcessor`.
 */
export function warnUnprocessedObservation(name: string, span: Span): void {
  const s = state();
  const recording = span.isRecording();
  const valid = isSpanContextValid(span.spanContext());
  if (recording && valid) s.verdicts.set(getSvcTracer(), "without");
  const generation = loggerGeneration();
  if (s.warnedGeneration === generation) return;
  if (!recording && valid && providerVerdict(getSvcTracer()) !== "without") return;
  s.warnedGeneration = generation;
  // With a provider registered (by the app, or by a library that set OpenTelemetry up first), starting NodeSDK would
  // not register another one: the advice is about that provider, or a provider of svc's own.
  const fix = valid
    ? "A tracer provider is already registered (by the app, or by a library such as Sentry with " +
      "enableOpenTelemetrySetup), so starting NodeSDK cannot register another: add new SvcSpanProcessor() to the " +
      "span processors of that provider where its set-up allows, or give svc a provider of its own: " +
      "setSvcTracerProvider(new NodeTracerProvider({ spanProcessors: [new SvcSpanProcessor()] }))."
    : "Register a tracer provider with the svc span processor when the app starts, for example " +
      "new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] }).start(), or pass such a provider to " +
      "setSvcTracerProvider().";
  const what = recording
    ? "was recorded by a tracer provider without SvcSpanProcessor"
    : valid
      ? "was started by a tracer provider without SvcSpanProcessor (whose sampler left it unrecorded)"
      : "was started while no OpenTelemetry tracer provider is registered";
  const consequence = valid
    ? "it and later observations do not reach svc, whatever that provider's sampler decides"
    : "it and later observations are not recorded and do not reach svc";
  const own = "(If you send svc spans with an exporter of your own, ignore this line.)";
  getGlobalLogger().warn(`observation "${name}" ${what}: ${consequence}. ${fix} ${own}`);
}

/**
 * Whether a `SvcSpanProcessor` sees the spans of `tracer`'s provider, whose sampler left a span unrecorded. Unless
 * known, asked by a probe span under a sampled remote parent (parent-based samplers record it), which a processor
 * that sees it claims and drops; it ends at once, so any other processor sees a whole span (one per tracer).
 */
function providerVerdict(tracer: Tracer): "with" | "without" | "unknown" {
  const s = state();
  const known = s.verdicts.get(tracer);
  if (known !== undefined) return known;
  const probes = processorProbes();
  let verdict: "with" | "without" | "unknown" = probes.length === 0 ? "without" : "unknown";
  const probed = s.probes.get(tracer) ?? 0;
  if (verdict === "unknown" && probed < MAX_PROBES) {
    s.probes.set(tracer, probed + 1);
    verdict = probe(tracer, probes);
  }
  if (verdict !== "unknown") s.verdicts.set(tracer, verdict);
  return verdict;
}

function probe(tracer: Tracer, probes: readonly ProcessorProbe[]): "with" | "without" | "unknown" {
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: randomHex(16),
    spanId: randomHex(8),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  const before = processorStarts();
  const span = tracer.startSpan("svc processor probe", {}, parent);
  try {
    if (processorStarts() !== before) {
      for (const p of probes) p.claims(span.spanContext());
      return "with";
    }
    return span.isRecording() ? "without" : "unknown";
  } finally {
    span.end();
  }
}
