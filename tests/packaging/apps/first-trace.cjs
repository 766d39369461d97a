// A new app's first traced call and score, set up as the root README shows, loaded with `require`.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { SvcClient } = require("@svc/client");
const { SvcBrowserClient } = require("@svc/client/browser");
const { CallbackHandler } = require("@svc/langchain");
const { SvcSpanProcessor } = require("@svc/otel");
const { startActiveObservation } = require("@svc/tracing");

async function main() {
  // Keys and address from SVC_PUBLIC_KEY, SVC_SECRET_KEY and SVC_BASE_URL.
  const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
  sdk.start();
  const svc = new SvcClient();

  const traceId = await startActiveObservation("first-trace-cjs", async (span) => {
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
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
