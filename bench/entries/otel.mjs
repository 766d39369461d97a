// A typical service entry on raw OpenTelemetry: tracing set up, one traced request, one score sent.
import { context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

const baseUrl = process.env.SVC_BASE_URL ?? "http://127.0.0.1:3000";
const auth = `Basic ${Buffer.from(`${process.env.SVC_PUBLIC_KEY}:${process.env.SVC_SECRET_KEY}`).toString("base64")}`;
const exporter = new OTLPTraceExporter({
  url: `${baseUrl}/api/public/otel/v1/traces`,
  headers: { Authorization: auth },
  compression: "gzip",
});
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
const tracer = provider.getTracer("app");

export async function handle(question) {
  const root = tracer.startSpan("agent", { attributes: { "svc.observation.input": JSON.stringify(question) } });
  const ctx = trace.setSpan(context.active(), root);
  const gen = tracer.startSpan("llm", { attributes: { "svc.observation.type": "generation" } }, ctx);
  gen.end();
  root.setAttribute("svc.observation.output", JSON.stringify({ answer: 42 }));
  root.end();
  await fetch(`${baseUrl}/api/public/scores`, {
    method: "POST",
    headers: { Authorization: auth, "Content-Type": "application/json" },
    body: JSON.stringify([{ name: "quality", value: 1, traceId: root.spanContext().traceId }]),
  });
  await provider.forceFlush();
}
