import { describeError, getGlobalLogger } from "@svc/core";
import { getSvcTracerProvider } from "@svc/tracing";

interface Flushable {
  forceFlush?: () => Promise<void>;
  getDelegate?: () => unknown;
}

/**
 * Flushes the provider svc creates spans with: the svc provider, else the global one (looking through
 * the OpenTelemetry proxy to the registered provider). Does nothing for a provider without `forceFlush`;
 * a failed flush is logged, never thrown.
 */
export async function flushSpans(): Promise<void> {
  const provider = getSvcTracerProvider() as Flushable;
  const target =
    typeof provider.forceFlush === "function" ? provider : (provider.getDelegate?.() as Flushable | undefined);
  if (typeof target?.forceFlush !== "function") return;
  try {
    await target.forceFlush();
  } catch (error) {
    getGlobalLogger().warn(`ExperimentManager: flushing spans failed: ${describeError(error)}`);
  }
}
