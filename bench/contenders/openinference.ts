// Raw OpenTelemetry as Phoenix (Arize) users run it: BasicTracerProvider + BatchSpanProcessor + the OTLP/protobuf
// exporter, spans carrying the OpenInference semantic attributes. OpenInference has no score API: spans only.
import {
  MimeType,
  SemanticConventions as OI,
  OpenInferenceSpanKind,
} from "@arizeai/openinference-semantic-conventions";
import { context, type Span, type Tracer, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { INPUTS, METADATA, OUTPUTS, STEPS } from "../payload.ts";
import type { SinkTarget, SpansContender } from "./types.ts";

/** Starts a span with the OpenInference attributes: kind, JSON input with its MIME type, metadata as JSON. */
function start(tracer: Tracer, name: string, kind: OpenInferenceSpanKind, parent: Span | undefined, k: number): Span {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  return tracer.startSpan(
    name,
    {
      attributes: {
        [OI.OPENINFERENCE_SPAN_KIND]: kind,
        [OI.INPUT_VALUE]: JSON.stringify(INPUTS[k % INPUTS.length]),
        [OI.INPUT_MIME_TYPE]: MimeType.JSON,
        [OI.METADATA]: JSON.stringify(METADATA),
      },
    },
    ctx,
  );
}

function end(span: Span, k: number): void {
  span.setAttribute(OI.OUTPUT_VALUE, JSON.stringify(OUTPUTS[k % OUTPUTS.length]));
  span.setAttribute(OI.OUTPUT_MIME_TYPE, MimeType.JSON);
  span.end();
}

export function spans(target: SinkTarget): SpansContender {
  // Phoenix's collector path, with a bearer key as Phoenix's authentication expects; gzip on, as on the floor.
  const exporter = new OTLPTraceExporter({
    url: `${target.baseUrl}/v1/traces`,
    headers: { Authorization: `Bearer ${target.secretKey}` },
    compression: "gzip" as never,
    // Room for every batch a forceFlush() of the full queue sends at once (as on the floor).
    concurrencyLimit: 100,
  });
  // Defaults except the queue bound, raised as on the floor so that no span of the burst is dropped.
  const processor = new BatchSpanProcessor(exporter, { maxQueueSize: 100_000 });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("bench");
  return {
    trace(i) {
      const k = i * 10;
      const root = start(tracer, "agent", OpenInferenceSpanKind.AGENT, undefined, k);
      for (let s = 0; s < STEPS; s++) {
        const chain = start(tracer, `step-${s}`, OpenInferenceSpanKind.CHAIN, root, k + 3 * s + 1);
        const llm = start(tracer, "llm", OpenInferenceSpanKind.LLM, chain, k + 3 * s + 2);
        llm.setAttribute(OI.LLM_MODEL_NAME, "gpt-bench");
        end(llm, k + 3 * s + 2);
        const tool = start(tracer, "tool", OpenInferenceSpanKind.TOOL, chain, k + 3 * s + 3);
        end(tool, k + 3 * s + 3);
        end(chain, k + 3 * s + 1);
      }
      end(root, k);
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** OpenInference defines span attributes only; there is nothing to send scores with. */
export function scores(): never {
  throw new Error("OpenInference has no score API");
}
