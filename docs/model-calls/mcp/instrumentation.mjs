// node --import ./instrumentation.mjs app.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";
import { McpInstrumentation } from "@traceloop/instrumentation-mcp";

const mcp = new McpInstrumentation(); // records tool arguments and results; `{ traceContent: false }` leaves them out
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()], instrumentations: [mcp] });
sdk.start();
mcp.manuallyInstrument({ Client, Server }); // the client, the server, or both: whichever side runs here
