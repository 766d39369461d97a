import { createRequire, syncBuiltinESMExports } from "node:module";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { InMemorySpanExporter, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { SvcSpanProcessor } from "@svc/otel";
import { onTestFinished } from "vitest";

/**
 * A registered provider with `processor` and an in-memory recorder of every span, under the real http and undici
 * instrumentation; undone when the test finishes. Incoming requests are left out: the servers of the tests run in
 * this process. Returns the recorder and `node:http` loaded after the patch, as an application importing it then
 * would; ES module imports of it (`import("http")`) see the patched functions too.
 */
export function instrumentedProvider(processor: SvcSpanProcessor) {
  const seen = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(seen), processor as unknown as SpanProcessor],
  });
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new HttpInstrumentation({ ignoreIncomingRequestHook: () => true }), new UndiciInstrumentation()],
  });
  onTestFinished(async () => {
    unregister();
    syncBuiltinESMExports();
    await provider.shutdown();
  });
  const http = createRequire(import.meta.url)("node:http") as typeof import("node:http");
  syncBuiltinESMExports();
  return { seen, provider, http };
}
