import { type Context, context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, type Span } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { countProcessorStart } from "@svc/core";
import { setSvcTracerProvider } from "@svc/tracing";
import { afterAll, afterEach, beforeAll } from "vitest";

/**
 * Exports into memory in place of SvcSpanProcessor: it counts span starts as the processor does, so the SDK
 * takes it for a provider that sends svc spans and does not warn that observations go nowhere.
 */
class InMemorySvcProcessor extends SimpleSpanProcessor {
  override onStart(span: Span, parentContext: Context): void {
    countProcessorStart();
    super.onStart(span, parentContext);
  }
}

/**
 * Registers a real Node tracer provider (global provider, AsyncLocalStorage context manager, W3C
 * propagators) that exports into memory, for the current test file. Spans are cleared after each test.
 */
export function useInMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new InMemorySvcProcessor(exporter)] });

  beforeAll(() => {
    setSvcTracerProvider(null);
    provider.register();
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const span = (name: string): ReadableSpan => {
    const found = spans().filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one finished span named "${name}", found ${found.length}`);
    return found[0]!;
  };
  return { exporter, provider, spans, span };
}

/** Span id of the parent of `span`, or undefined for a root. */
export function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
