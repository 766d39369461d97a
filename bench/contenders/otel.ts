// The floor: raw OpenTelemetry JS with BatchSpanProcessor + OTLPTraceExporter (gzip), and a bare score batcher.
import { context, type Span, type Tracer, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { INPUTS, METADATA, OUTPUTS, STEPS, scoreBody } from "../payload.ts";
import type { ScoresContender, SinkTarget, SpansContender } from "./types.ts";

function authHeader(target: SinkTarget): string {
  return `Basic ${Buffer.from(`${target.publicKey}:${target.secretKey}`).toString("base64")}`;
}

/**
 * Starts a span with the same attributes the SDKs set: type, JSON input, output and metadata (one JSON attribute, or
 * with `flatMetadata` one attribute per key, as v6 writes it).
 */
function start(tracer: Tracer, name: string, type: string, parent: Span | undefined, i: number, flat: boolean): Span {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  if (flat) {
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

/** The floor's processor: `BatchSpanProcessor` with `OTLPTraceExporter` (gzip). */
export function floorProcessor(target: SinkTarget): SpanProcessor {
  const exporter = new OTLPTraceExporter({
    url: `${target.baseUrl}/api/public/otel/v1/traces`,
    headers: { Authorization: authHeader(target) },
    compression: "gzip" as never,
    // Room for every batch a forceFlush() of the full queue sends at once.
    concurrencyLimit: 100,
  });
  // Defaults except the queue bound, raised so the floor itself keeps every span of the burst.
  return new BatchSpanProcessor(exporter, { maxQueueSize: 100_000 });
}

/** The floor's tracing calls on a provider with `processor`, spans of the tracer `scope`. */
export function floorCalls(
  processor: SpanProcessor,
  { scope = "bench", flatMetadata = false }: { scope?: string; flatMetadata?: boolean } = {},
): SpansContender {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer(scope);
  const open = (name: string, type: string, parent: Span | undefined, i: number) =>
    start(tracer, name, type, parent, i, flatMetadata);
  return {
    trace(i) {
      const k = i * 10;
      const root = open("agent", "agent", undefined, k);
      for (let s = 0; s < STEPS; s++) {
        const chain = open(`step-${s}`, "chain", root, k + 3 * s + 1);
        const gen = open("llm", "generation", chain, k + 3 * s + 2);
        gen.setAttribute("svc.observation.model.name", "gpt-bench");
        end(gen, k + 3 * s + 2);
        const tool = open("tool", "tool", chain, k + 3 * s + 3);
        end(tool, k + 3 * s + 3);
        end(chain, k + 3 * s + 1);
      }
      end(root, k);
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

export function spans(target: SinkTarget): SpansContender {
  return floorCalls(floorProcessor(target));
}

/** The bare batcher: pushes plain objects and sends 100-item JSON arrays with fetch. */
export function scores(target: SinkTarget): ScoresContender {
  const url = `${target.baseUrl}/api/public/scores`;
  const headers = { Authorization: authHeader(target), "Content-Type": "application/json" };
  let queue: object[] = [];
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const batch = queue;
    queue = [];
    const p: Promise<void> = fetch(url, { method: "POST", headers, body: JSON.stringify(batch) })
      .then((res) => res.body?.cancel())
      .catch(() => undefined)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  return {
    create(i) {
      queue.push({ id: crypto.randomUUID(), ...scoreBody(i, "t".repeat(32)) });
      if (queue.length >= 100) send();
    },
    async flush() {
      if (queue.length > 0) send();
      await Promise.allSettled([...inFlight]);
    },
    async shutdown() {
      await this.flush();
    },
  };
}
