import { type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import { SVC_TRACER_NAME } from "./attributes.js";
import { SDK_VERSION } from "./version.js";

interface SvcGlobalState {
  tracerProvider?: TracerProvider;
  cachedFor?: TracerProvider;
  cachedTracer?: Tracer;
}

// One slot per process, shared by every loaded copy of the package; the slot is fixed, its contents change.
const SLOT = Symbol.for("svc");
/** The slot's object once found: the slot can be neither rewritten nor removed, so it never goes stale. */
let found: SvcGlobalState | undefined;

function state(): SvcGlobalState {
  if (found !== undefined) return found;
  const holder = globalThis as unknown as Record<symbol, SvcGlobalState | undefined>;
  let current = holder[SLOT];
  if (current === undefined) {
    current = {};
    Object.defineProperty(globalThis, SLOT, {
      value: current,
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
  found = current;
  return current;
}

/**
 * Makes svc create its spans with `provider` instead of the global OpenTelemetry provider, so that
 * svc spans can be kept apart from an application's own tracing. Pass `null` to go back to the global one.
 */
export function setSvcTracerProvider(provider: TracerProvider | null): void {
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
