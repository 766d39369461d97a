// A typical service entry on raw OpenTelemetry with OpenInference attributes, as Phoenix documents it: tracing set up
// with the OTLP/protobuf exporter, one traced request with an LLM span. OpenInference has no scores.
import { MimeType, OpenInferenceSpanKind, SemanticConventions } from "@arizeai/openinference-semantic-conventions";
import { context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

const exporter = new OTLPTraceExporter({
  url: `${process.env.PHOENIX_COLLECTOR_ENDPOINT ?? "http://127.0.0.1:6006"}/v1/traces`,
  headers: { Authorization: `Bearer ${process.env.PHOENIX_API_KEY}` },
  compression: "gzip",
});
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
const tracer = provider.getTracer("app");

export async function handle(question) {
  const root = tracer.startSpan("agent", {
    attributes: {
      [SemanticConventions.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.AGENT,
      [SemanticConventions.INPUT_VALUE]: JSON.stringify(question),
      [SemanticConventions.INPUT_MIME_TYPE]: MimeType.JSON,
    },
  });
  const ctx = trace.setSpan(context.active(), root);
  const llm = tracer.startSpan(
    "llm",
    {
      attributes: {
        [SemanticConventions.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.LLM,
        [SemanticConventions.LLM_MODEL_NAME]: "gpt",
      },
    },
    ctx,
  );
  llm.end();
  root.setAttribute(SemanticConventions.OUTPUT_VALUE, JSON.stringify({ answer: 42 }));
  root.end();
  await provider.forceFlush();
}
