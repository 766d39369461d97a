// node --import ./instrumentation.mjs app.mjs
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";
import OpenAI from "openai";

const openai = new OpenAIInstrumentation();
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [openai] });
sdk.start();
// ES modules are not patched on import: hand the instrumentation the module the app imports.
openai.manuallyInstrument(OpenAI);
