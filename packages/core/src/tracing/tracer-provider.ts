import { type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import { SVC_TRACER_NAME } from "../attributes.js";
import { getGlobalLogger } from "../log/logger.js";
import { shared } from "../registry.js";
import { SDK_VERSION } from "../version.js";

interface SvcGlobalState {
  tracerProvider?: TracerProvider;
  cachedFor?: TracerProvider;
  cachedTracer?: Tracer;
}

// Shared by every loaded copy of the packages (`@svc/tracing` sets it, the test kit of `@svc/otel` too), and with
// 6.0.0, which keeps this shape under `svc`; the previous major keeps `{ isolatedTracerProvider }` there instead.
const state = shared<SvcGlobalState>("tracer", () => ({}), {
  key: "svc",
  readable: (value) => !("isolatedTracerProvider" in value) && !("version" in value),
});

/** Makes svc create its spans with `provider` instead of the global one (`null` goes back to it). */
export function setSvcTracerProvider(provider: TracerProvider | null): void {
  if (provider != null && typeof (provider as { getTracer?: unknown }).getTracer !== "function") {
    getGlobalLogger().warn("setSvcTracerProvider: ignored a value that is not a tracer provider (no getTracer method)");
    return;
  }
  const s = state();
  s.tracerProvider = provider ?? undefined;
  s.cachedFor = undefined;
  s.cachedTracer = undefined;
}

/** The provider svc creates spans with: the one given to {@link setSvcTracerProvider}, else the global one. */
export function getSvcTracerProvider(): TracerProvider {
  return state().tracerProvider ?? trace.getTracerProvider();
}

/** The tracer (scope `svc-sdk`, version of the SDK) that svc creates its spans with. */
export function getSvcTracer(): Tracer {
  const s = state();
  const provider = s.tracerProvider ?? trace.getTracerProvider();
  if (s.cachedFor !== provider || s.cachedTracer === undefined) {
    s.cachedTracer = provider.getTracer(SVC_TRACER_NAME, SDK_VERSION);
    s.cachedFor = provider;
  }
  return s.cachedTracer;
}
