// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true node --require ./instrumentation-otel.cjs app.cjs
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { OpenAIInstrumentation } = require("@opentelemetry/instrumentation-openai");
const { SvcSpanProcessor } = require("@svc/otel");

const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [new OpenAIInstrumentation()] });
sdk.start();
