import { isSpanContextValid, ROOT_CONTEXT, type Span } from "@opentelemetry/api";
import { describeError, getSvcTracer, type ProcessorProbe, processorProbes, processorStarts } from "@svc/core";
import type { DoctorCheck } from "./report.js";
import type { DoctorTarget } from "./setup-checks.js";

const REGISTER_FIX =
  "register a tracer provider with the span processor when the app starts, for example new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] }).start(), or pass such a provider to setSvcTracerProvider()";

/** What became of a span started on the svc tracer: who recorded it, and which span processor expects to export it. */
export interface TracingObservation {
  /** A `SvcSpanProcessor` (of any copy of the SDK) saw the span start. */
  seen: boolean;
  /** The span has a valid context: some tracer provider is registered. */
  valid: boolean;
  recording: boolean;
  /** The processor that expects to export the span, if any. */
  exporter: ProcessorProbe | undefined;
  /** A processor that saw the span start, when none expects to export it. */
  other: ProcessorProbe | undefined;
  /** What the tracer threw, when starting the span failed. */
  error?: string;
}

/**
 * Starts a span on the svc tracer, at the root, reads what became of it, and ends it: every SvcSpanProcessor that saw
 * it start drops it unexported; another vendor's processor sees a whole span, never a start without an end.
 */
export function observeTracing(): TracingObservation {
  const before = processorStarts();
  const probes = processorProbes();
  const startsBefore = probes.map((probe) => probe.starts());
  let span: Span;
  try {
    span = getSvcTracer().startSpan("svc doctor probe", {}, ROOT_CONTEXT);
  } catch (error) {
    const nothing = { seen: false, valid: false, recording: false, exporter: undefined, other: undefined };
    return { ...nothing, error: describeError(error) };
  }
  try {
    const context = span.spanContext();
    const claimed = probes.filter((probe) => probe.claims(context));
    return {
      seen: processorStarts() > before,
      valid: isSpanContextValid(context),
      recording: span.isRecording(),
      exporter: claimed[0],
      other: probes.find((probe, i) => probe.starts() > (startsBefore[i] ?? 0)),
    };
  } finally {
    span.end();
  }
}

/** The checks `tracer provider` and `span export`, from what {@link observeTracing} saw. */
export function checkTracing(target: DoctorTarget, observed: TracingObservation): DoctorCheck[] {
  const provider = "tracer provider";
  if (observed.error !== undefined)
    return [{ name: provider, status: "fail", detail: `the svc tracer failed to start a span: ${observed.error}` }];
  if (!observed.seen) {
    const detail = "no span processor of svc sees svc spans";
    const skip: DoctorCheck = { name: "span export", status: "skip", detail };
    const found: DoctorCheck = !observed.valid
      ? { name: provider, status: "fail", detail: "no OpenTelemetry tracer provider is registered", fix: REGISTER_FIX }
      : !observed.recording
        ? {
            name: provider,
            status: "warn",
            detail: "the tracer provider's sampler left a new trace unrecorded: some or all traces never reach svc",
            fix: "check the sampler of the tracer provider (OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG)",
          }
        : {
            name: provider,
            status: "fail",
            detail: "a tracer provider records svc spans, but without SvcSpanProcessor",
            fix: "add new SvcSpanProcessor() to its spanProcessors, or pass a provider that has it to setSvcTracerProvider()",
          };
    return [found, skip];
  }
  const probe = observed.exporter ?? observed.other;
  const leftOut = modelSpansCheck(processorProbes());
  return [providerCheck(target, probe), exportCheck(observed.exporter, observed.other), ...(leftOut ? [leftOut] : [])];
}

/** The check `model spans`, only when a filter left out spans that look like model calls: their scopes and counts. */
function modelSpansCheck(probes: readonly ProcessorProbe[]): DoctorCheck | undefined {
  const byScope = new Map<string, number>();
  let total = 0;
  for (const probe of probes)
    for (const [scope, count] of Object.entries(probe.filteredOut?.().modelCallScopes ?? {})) {
      byScope.set(scope, (byScope.get(scope) ?? 0) + count);
      total += count;
    }
  if (total === 0) return undefined;
  const named = [...byScope].map(([scope, count]) => `"${scope || "(no scope name)"}" (${count})`).join(", ");
  const first = JSON.stringify([...byScope.keys()][0] ?? "");
  return {
    name: "model spans",
    status: "warn",
    detail: `the span filter left out ${total} spans that look like model calls, by scope: ${named}`,
    fix: `export them with shouldExportSpan: ({ otelSpan }) => isDefaultExportSpan(otelSpan) || otelSpan.instrumentationScope.name === ${first}, and report the scope on the SDK's issue tracker so the default filter can include it`,
  };
}

function providerCheck(target: DoctorTarget, probe: ProcessorProbe | undefined): DoctorCheck {
  const name = "tracer provider";
  if (probe === undefined)
    return { name, status: "pass", detail: "a tracer provider with a span processor of svc records svc spans" };
  const found = `a tracer provider with SvcSpanProcessor records svc spans; it sends to ${probe.endpoint} (${probe.compression})`;
  const sameServer = probe.endpoint === "a custom exporter" || probe.endpoint.startsWith(`${target.baseUrl}/`);
  const sameKeys =
    probe.publicKey === undefined || target.publicKey === undefined || probe.publicKey === target.publicKey;
  if (sameServer && sameKeys) return { name, status: "pass", detail: found };
  const differs = [
    sameServer ? undefined : `its server is not ${target.baseUrl}`,
    sameKeys ? undefined : `its public key ${probe.publicKey} is not ${target.publicKey}`,
  ].filter(Boolean);
  return {
    name,
    status: "warn",
    detail: `${found}, but ${differs.join(" and ")}`,
    fix: "give the span processor and the client the same keys and base URL, or scores and traces land in different projects",
  };
}

function exportCheck(exporter: ProcessorProbe | undefined, other: ProcessorProbe | undefined): DoctorCheck {
  const name = "span export";
  const probe = exporter ?? other;
  if (probe === undefined)
    return { name, status: "skip", detail: "the span processor tells nothing about itself (an older SDK version?)" };
  if (probe.cannotSend)
    return {
      name,
      status: "fail",
      detail: `SvcSpanProcessor cannot send: ${probe.cannotSend}`,
      fix: "see the keys and base URL checks",
    };
  const health = probe.health();
  if (health.shutdown)
    return {
      name,
      status: "fail",
      detail: "SvcSpanProcessor was shut down: spans that end now are dropped",
      fix: "shut the tracer provider down only when the process ends",
    };
  if (exporter === undefined)
    return {
      name,
      status: "fail",
      detail: "SvcSpanProcessor does not export spans of the svc tracer: its shouldExportSpan leaves them out",
      fix: "make shouldExportSpan return true for them, for example with isDefaultExportSpan(otelSpan) || ...",
    };
  const figures = `${health.sent} spans sent so far, ${health.queued} waiting`;
  const lastError = health.lastError;
  if (lastError && (health.lastSuccessAt === undefined || lastError.at > health.lastSuccessAt))
    return {
      name,
      status: "warn",
      detail: `a span started now would be queued for export, but the last export failed at ${lastError.at}: ${lastError.description} (${figures})`,
      fix: "the checks above tell the cause; processor.health() has the counts",
    };
  const last = health.lastSuccessAt ? `, last delivery at ${health.lastSuccessAt}` : "";
  return { name, status: "pass", detail: `a span started now would be exported (${figures}${last})` };
}
