// node --import ./instrumentation.mjs app.mjs
// The Anthropic SDK traces its own calls to the global tracer provider: nothing to patch.
// ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content records messages too.
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";

const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
sdk.start();
