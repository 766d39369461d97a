// node --import ./instrumentation-openinference.mjs app.mjs
import Anthropic from "@anthropic-ai/sdk";
import { AnthropicInstrumentation } from "@arizeai/openinference-instrumentation-anthropic";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";

const anthropic = new AnthropicInstrumentation();
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [anthropic] });
sdk.start();
anthropic.manuallyInstrument(Anthropic);
