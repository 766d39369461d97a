// A new app's first traced call and score, set up as the root README shows, loaded with `import`.
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcClient } from "@svc/client";
import { SvcBrowserClient } from "@svc/client/browser";
import { CallbackHandler } from "@svc/langchain";
import { SvcSpanProcessor } from "@svc/otel";
import { startActiveObservation } from "@svc/tracing";
import { firstTrace } from "./first-trace-steps.cjs";

await firstTrace(
  { NodeSDK, SvcClient, SvcSpanProcessor, startActiveObservation, loaded: [SvcBrowserClient, CallbackHandler] },
  "first-trace-esm",
);
