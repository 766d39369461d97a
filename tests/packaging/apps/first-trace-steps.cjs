// The steps of the first-trace apps, given the SDK as the app loaded it (with `import` or with `require`).

/** Sets up NodeSDK with SvcSpanProcessor, sends one traced call with a generation and a score, shuts down. */
async function firstTrace({ NodeSDK, SvcClient, SvcSpanProcessor, startActiveObservation, loaded }, rootName) {
  // Keys and address from SVC_PUBLIC_KEY, SVC_SECRET_KEY and SVC_BASE_URL.
  const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
  sdk.start();
  const svc = new SvcClient();

  const traceId = await startActiveObservation(rootName, async (span) => {
    span.update({ input: { question: "What is svc?" } });
    const generation = span.startObservation("llm-call", { model: "fake-model" }, { asType: "generation" });
    generation.update({ output: "An observability platform.", usageDetails: { input: 4, output: 3 } }).end();
    svc.score.trace({ otelSpan: span.otelSpan }, { name: "helpfulness", value: 0.9 });
    return span.traceId;
  });

  await svc.shutdown();
  await sdk.shutdown();
  const ok = loaded.every((value) => typeof value === "function");
  console.log(JSON.stringify({ node: process.version, traceId, loaded: ok }));
}

module.exports = { firstTrace };
