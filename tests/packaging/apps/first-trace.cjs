// A new app's first traced call and score, set up as the root README shows, loaded with `require`.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { SvcClient } = require("@svc/client");
const { SvcBrowserClient } = require("@svc/client/browser");
const { CallbackHandler } = require("@svc/langchain");
const { SvcSpanProcessor } = require("@svc/otel");
const { startActiveObservation } = require("@svc/tracing");
const { firstTrace } = require("./first-trace-steps.cjs");

firstTrace(
  { NodeSDK, SvcClient, SvcSpanProcessor, startActiveObservation, loaded: [SvcBrowserClient, CallbackHandler] },
  "first-trace-cjs",
).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
