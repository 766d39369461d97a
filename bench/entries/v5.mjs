// A typical service entry on the previous major: tracing set up, one traced request, one score sent.
import { LangfuseClient } from "@langfuse/client";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { setLangfuseTracerProvider, startObservation } from "@langfuse/tracing";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";

const processor = new LangfuseSpanProcessor();
const provider = new BasicTracerProvider({ spanProcessors: [processor] });
setLangfuseTracerProvider(provider);
const client = new LangfuseClient();

export async function handle(question) {
  const root = startObservation("agent", { input: question }, { asType: "agent" });
  root.startObservation("llm", { model: "gpt" }, { asType: "generation" }).end();
  root.update({ output: { answer: 42 } }).end();
  client.score.create({ name: "quality", value: 1, traceId: root.traceId });
  await client.score.flush();
  await provider.forceFlush();
}
