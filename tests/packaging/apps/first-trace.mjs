// A new app's first traced call and score, set up as the root README shows, loaded with `import`.
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcClient } from "@svc/client";
import { SvcBrowserClient } from "@svc/client/browser";
import { CallbackHandler } from "@svc/langchain";
import { SvcSpanProcessor } from "@svc/otel";
import { startActiveObservation } from "@svc/tracing";

// Keys and address from SVC_PUBLIC_KEY, SVC_SECRET_KEY and SVC_BASE_URL.
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
sdk.start();
const svc = new SvcClient();

const traceId = await startActiveObservation("first-trace-esm", async (span) => {
  span.update({ input: { question: "What is svc?" } });
  const generation = span.startObservation("llm-call", { model: "fake-model" }, { asType: "generation" });
  generation.update({ output: "An observability platform.", usageDetails: { input: 4, output: 3 } }).end();
  svc.score.trace({ otelSpan: span.otelSpan }, { name: "helpfulness", value: 0.9 });
  return span.traceId;
});

await svc.shutdown();
await sdk.shutdown();
const loaded = [SvcBrowserClient, CallbackHandler].every((value) => typeof value === "function");
console.log(JSON.stringify({ node: process.version, traceId, loaded }));
