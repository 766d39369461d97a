// The spans workload's ended spans as v6 hands them to an exporter, for the benchmarks of the export work alone.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { ReadableSpan } from "@svc/otel";
import { SvcSpanProcessor } from "@svc/otel";
import type { ExportItem } from "@svc/tracing/internal";
import { svcCalls } from "./contenders/svc.ts";

/**
 * The spans of `traces` traces of the workload in the batches v6 makes (its batch size, `flushAt` 512): the
 * processor with an in-memory exporter in place of the OTLP/HTTP one, so each span carries the attributes it would
 * send (environment, SDK identity, the observation's own), then the export stage's items.
 */
export async function exportedBatches(traces: number): Promise<ExportItem[][]> {
  const batches: ExportItem[][] = [];
  const exporter = {
    export(spans: ReadableSpan[], done: (result: { code: number }) => void) {
      batches.push(spans.map((span) => ({ span, attributes: span.attributes })));
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const processor = new SvcSpanProcessor({ exporter: exporter as never, environment: "bench" });
  const calls = svcCalls(processor as unknown as SpanProcessor);
  for (let i = 0; i < traces; i++) {
    calls.trace(i);
    // Yielding as the spans-yield workload does, so batches are made as while an application runs.
    if (i % 50 === 49) await yieldToLoop();
  }
  await calls.forceFlush();
  await calls.shutdown();
  return batches;
}
