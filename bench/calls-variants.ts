// Contenders for bench:calls that split v6's cost in two: the floor's calls with v6's span processor, and v6's
// calls with the floor's processor and exporter. Same spans and attributes as contenders/otel.ts and svc.ts.
import { context, type Span, type Tracer, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startObservation } from "@svc/tracing";
import type { SinkTarget, SpansContender } from "./contenders/types.ts";
import { INPUTS, METADATA, OUTPUTS, STEPS } from "./payload.ts";

function floorProcessor(target: SinkTarget): SpanProcessor {
  const exporter = new OTLPTraceExporter({
    url: `${target.baseUrl}/api/public/otel/v1/traces`,
    headers: { Authorization: `Basic ${Buffer.from(`${target.publicKey}:${target.secretKey}`).toString("base64")}` },
    compression: "gzip" as never,
    concurrencyLimit: 100,
  });
  return new BatchSpanProcessor(exporter, { maxQueueSize: 100_000 });
}

let flatMetadata = false;

function start(tracer: Tracer, name: string, type: string, parent: Span | undefined, i: number): Span {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  if (flatMetadata) {
    // The attributes v6 writes: one per metadata key.
    const attributes: Record<string, string | number | boolean> = {
      "svc.observation.type": type,
      "svc.observation.input": JSON.stringify(INPUTS[i % INPUTS.length]),
    };
    for (const key of Object.keys(METADATA))
      attributes[`svc.observation.metadata.${key}`] = METADATA[key as keyof typeof METADATA];
    return tracer.startSpan(name, { attributes }, ctx);
  }
  return tracer.startSpan(
    name,
    {
      attributes: {
        "svc.observation.type": type,
        "svc.observation.input": JSON.stringify(INPUTS[i % INPUTS.length]),
        "svc.observation.metadata": JSON.stringify(METADATA),
      },
    },
    ctx,
  );
}

function end(span: Span, i: number): void {
  span.setAttribute("svc.observation.output", JSON.stringify(OUTPUTS[i % OUTPUTS.length]));
  span.end();
}

/** The floor's calls on a provider with `processor`. */
function floorCalls(processor: SpanProcessor): SpansContender {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("svc-sdk");
  return {
    trace(i) {
      const k = i * 10;
      const root = start(tracer, "agent", "agent", undefined, k);
      for (let s = 0; s < STEPS; s++) {
        const chain = start(tracer, `step-${s}`, "chain", root, k + 3 * s + 1);
        const gen = start(tracer, "llm", "generation", chain, k + 3 * s + 2);
        gen.setAttribute("svc.observation.model.name", "gpt-bench");
        end(gen, k + 3 * s + 2);
        const tool = start(tracer, "tool", "tool", chain, k + 3 * s + 3);
        end(tool, k + 3 * s + 3);
        end(chain, k + 3 * s + 1);
      }
      end(root, k);
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** v6's calls on a provider with `processor`. */
function svcCalls(processor: SpanProcessor): SpansContender {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  setSvcTracerProvider(provider);
  const attrs = (i: number) => ({ input: INPUTS[i % INPUTS.length], metadata: METADATA });
  const out = (i: number) => ({ output: OUTPUTS[i % OUTPUTS.length] });
  return {
    trace(i) {
      const k = i * 10;
      const root = startObservation("agent", attrs(k), { asType: "agent" });
      for (let s = 0; s < STEPS; s++) {
        const chain = root.startObservation(`step-${s}`, attrs(k + 3 * s + 1), { asType: "chain" });
        chain
          .startObservation("llm", { ...attrs(k + 3 * s + 2), model: "gpt-bench" }, { asType: "generation" })
          .update(out(k + 3 * s + 2))
          .end();
        chain
          .startObservation("tool", attrs(k + 3 * s + 3), { asType: "tool" })
          .update(out(k + 3 * s + 3))
          .end();
        chain.update(out(k + 3 * s + 1)).end();
      }
      root.update(out(k)).end();
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The floor's calls, v6's span processor. */
export const floorCallsSvcProcessor = (target: SinkTarget) =>
  floorCalls(new SvcSpanProcessor({ ...target }) as unknown as SpanProcessor);
/** The floor's calls and processor, with metadata written as v6 writes it, one attribute per key. */
export const floorCallsFlatMetadata = (target: SinkTarget) => {
  flatMetadata = true;
  return floorCalls(floorProcessor(target));
};
/** v6's calls, the floor's processor and exporter. */
export const svcCallsFloorProcessor = (target: SinkTarget) => svcCalls(floorProcessor(target));
