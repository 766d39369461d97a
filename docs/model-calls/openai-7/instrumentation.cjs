// node --require ./instrumentation.cjs app.cjs
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { SvcSpanProcessor } = require("@svc/otel");

// Under CommonJS the instrumentation patches `openai` when the app requires it.
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [new OpenAIInstrumentation()] });
sdk.start();
