// A typical service entry on svc v6: tracing set up, one traced request, one score sent.
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startObservation } from "@svc/tracing";

const processor = new SvcSpanProcessor();
const provider = new BasicTracerProvider({ spanProcessors: [processor] });
setSvcTracerProvider(provider);
const client = new SvcClient();

export async function handle(question) {
  const root = startObservation("agent", { input: question }, { asType: "agent" });
  root.startObservation("llm", { model: "gpt" }, { asType: "generation" }).end();
  root.update({ output: { answer: 42 } }).end();
  client.score.create({ name: "quality", value: 1, traceId: root.traceId });
  await client.score.flush();
  await provider.forceFlush();
}
