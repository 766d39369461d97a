// node --import ./instrumentation.mjs app.mjs
import { OpenTelemetry } from "@ai-sdk/otel";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";
import { registerTelemetry } from "ai";

const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
sdk.start();
// Every AI SDK call is traced from here on, prompts and answers included (opt out per call with `telemetry`).
registerTelemetry(new OpenTelemetry());
