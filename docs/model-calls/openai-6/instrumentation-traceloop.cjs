// node --require ./instrumentation-traceloop.cjs app.cjs
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { OpenAIInstrumentation } = require("@traceloop/instrumentation-openai");
const { SvcSpanProcessor } = require("@svc/otel");

const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [new OpenAIInstrumentation()] });
sdk.start();
