// node --import ./instrumentation-traceloop.mjs app.mjs
import * as AnthropicSdk from "@anthropic-ai/sdk";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";
import { AnthropicInstrumentation } from "@traceloop/instrumentation-anthropic";

const anthropic = new AnthropicInstrumentation(); // records messages; `{ traceContent: false }` leaves them out
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [anthropic] });
sdk.start();
anthropic.manuallyInstrument(AnthropicSdk); // the module namespace
