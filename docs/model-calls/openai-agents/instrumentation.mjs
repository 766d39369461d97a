// node --import ./instrumentation.mjs app.mjs
// The Agents SDK traces to its own processors, not to OpenTelemetry: OpenInference's processor bridges them.
import { OpenAIAgentsInstrumentation } from "@arizeai/openinference-instrumentation-openai-agents";
import * as agents from "@openai/agents";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";

const bridge = new OpenAIAgentsInstrumentation();
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [bridge] });
sdk.start();
bridge.manuallyInstrument(agents); // replaces the SDK's own exporter to OpenAI's dashboard
