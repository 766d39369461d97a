// node --import ./instrumentation-legacy.mjs app.mjs
import { LegacyOpenTelemetry } from "@ai-sdk/otel";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";
import { registerTelemetry } from "ai";

const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
sdk.start();
// The AI SDK's earlier span layout (`ai.generateText`, `ai.generateText.doGenerate`, ... with `ai.*` attributes).
registerTelemetry(new LegacyOpenTelemetry());
