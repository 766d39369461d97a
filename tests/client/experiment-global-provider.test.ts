import { context, propagation, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { afterAll, expect, it } from "vitest";
import { answer, capitals, reply, rootSpans } from "../support/experiment.ts";
import { startServer } from "../support/http-server.ts";

const server = await startServer(reply);
const processor = new SvcSpanProcessor(
  { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test", flushAt: 1000, flushInterval: 3600 },
  {},
);
const provider = new NodeTracerProvider({ spanProcessors: [processor] });
provider.register();

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  await server.close();
});

it("flushes the globally registered provider before run resolves", async () => {
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" });

  await svc.experiment.run({ name: "capitals", data: capitals, task: answer });

  expect(rootSpans(server)).toHaveLength(2);
});
