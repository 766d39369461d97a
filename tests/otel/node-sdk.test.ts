import { context, propagation, trace } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startActiveObservation } from "@svc/tracing";
import { afterEach, expect, it, onTestFinished } from "vitest";
import { startServer } from "../support/http-server.ts";
import { exportedSpans, otlpRequests } from "../support/otel.ts";

afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

it("exports observations through NodeSDK configured with the processor, and shutdown sends them", async () => {
  const server = await startServer();
  onTestFinished(server.close);
  setSvcTracerProvider(null);
  const sdk = new NodeSDK({
    spanProcessors: [new SvcSpanProcessor({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" }, {})],
  });
  sdk.start();

  startActiveObservation("handle-request", () => {
    startActiveObservation("retrieve", () => undefined);
  });
  await sdk.shutdown();

  expect(otlpRequests(server)).toHaveLength(1);
  expect(exportedSpans(server).map((s) => s.name)).toEqual(["retrieve", "handle-request"]);
});
