import { gzipSync } from "node:zlib";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { describe, expect, it } from "vitest";
import { hexId, otlpJsonExport, type TestDevServer, useDevServer } from "../support/dev-server.ts";

const OTLP_PATH = "/api/public/otel/v1/traces";
type Compression = NonNullable<ConstructorParameters<typeof ProtoExporter>[0]>["compression"];

/** Records one parent span with one child through a real OpenTelemetry provider and the given exporter. */
function exportWith(exporter: SpanExporter): Promise<string> {
  return exportThrough(new SimpleSpanProcessor(exporter));
}

/** Records one parent span with one child through a real OpenTelemetry provider and the given span processor. */
async function exportThrough(processor: SpanProcessor): Promise<string> {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("svc-sdk", "6.0.0");
  let traceId = "";
  {
    const parent = tracer.startSpan("pipeline");
    traceId = parent.spanContext().traceId;
    parent.setAttributes({ "svc.observation.type": "agent", "svc.observation.input": '{"q":"hi"}' });
    // No context manager is registered here, so the parent is passed explicitly.
    const child = tracer.startSpan("llm-call", {}, trace.setSpan(context.active(), parent));
    child.setAttributes({
      "svc.observation.type": "generation",
      "svc.observation.model.name": "gpt-test",
      "svc.observation.usage_details": '{"input":3,"output":5,"total":8}',
      "svc.observation.metadata.attempt": 2,
    });
    child.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
    child.end();
    parent.end();
  }
  await provider.forceFlush();
  await provider.shutdown();
  return traceId;
}

function exporterOptions(server: TestDevServer, compression?: "gzip" | "none") {
  return {
    url: `${server.url}${OTLP_PATH}`,
    headers: { Authorization: server.basicAuth, "x-svc-ingestion-version": "4" },
    ...(compression ? { compression: compression as Compression } : {}),
  };
}

async function observationsOf(server: TestDevServer, traceId: string, fields = "core,basic,io,model,usage,metadata") {
  const res = await server.request("GET", `/api/public/v2/observations?traceId=${traceId}&fields=${fields}`);
  expect(res.status).toBe(200);
  return res.body.data as Record<string, unknown>[];
}

function expectPipeline(observations: Record<string, unknown>[]) {
  const parent = observations.find((o) => o.name === "pipeline");
  const child = observations.find((o) => o.name === "llm-call");
  expect(parent).toMatchObject({ type: "AGENT", input: '{"q":"hi"}', parentObservationId: null });
  expect(child).toMatchObject({
    type: "GENERATION",
    parentObservationId: parent?.id,
    providedModelName: "gpt-test",
    usageDetails: { input: 3, output: 5, total: 8 },
    metadata: { attempt: 2 },
    level: "ERROR",
    statusMessage: "boom",
  });
}

describe("dev server: OTLP trace ingestion", () => {
  it("turns spans from the OTLP/JSON exporter into observations", async () => {
    const server = await useDevServer();

    const traceId = await exportWith(new JsonExporter(exporterOptions(server)));

    expectPipeline(await observationsOf(server, traceId));
  });

  it("reads gzip-compressed protobuf from the OTLP/protobuf exporter", async () => {
    const server = await useDevServer();

    const traceId = await exportWith(new ProtoExporter(exporterOptions(server, "gzip")));

    expectPipeline(await observationsOf(server, traceId));
  });

  it("reads uncompressed protobuf", async () => {
    const server = await useDevServer();

    const traceId = await exportWith(new ProtoExporter(exporterOptions(server, "none")));

    expectPipeline(await observationsOf(server, traceId));
  });

  it.each(["gzip", "none"] as const)(
    "turns spans from SvcSpanProcessor's OTLP/protobuf export (compression %s) into observations",
    async (compression) => {
      const server = await useDevServer();
      const { publicKey, secretKey } = server;

      const processor = new SvcSpanProcessor(
        {
          baseUrl: server.url,
          publicKey,
          secretKey,
          protocol: "http/protobuf",
          compression,
          mediaUploadEnabled: false,
        },
        {},
      );
      const traceId = await exportThrough(processor);

      expectPipeline(await observationsOf(server, traceId));
    },
  );

  it("reads a gzip-compressed OTLP/JSON body", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const body = gzipSync(JSON.stringify(otlpJsonExport([{ traceId, spanId: hexId(8), name: "zipped" }])));

    const res = await fetch(`${server.url}${OTLP_PATH}`, {
      method: "POST",
      headers: { authorization: server.basicAuth, "content-type": "application/json", "content-encoding": "gzip" },
      body,
    });

    expect(res.status).toBe(200);
    expect((await observationsOf(server, traceId, "core,basic")).map((o) => o.name)).toEqual(["zipped"]);
  });

  it("answers 200 {} to an export without resourceSpans", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", OTLP_PATH, { body: {} });

    expect(res).toMatchObject({ status: 200, body: {} });
  });

  it("answers 400 to a content type other than JSON or protobuf", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", OTLP_PATH, { body: "x", headers: { "content-type": "text/plain" } });

    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid content type");
  });

  it("rejects the whole export when one span has a malformed trace id", async () => {
    const server = await useDevServer();
    const good = { traceId: hexId(16), spanId: hexId(8), name: "good" };

    const res = await server.request("POST", OTLP_PATH, {
      body: otlpJsonExport([good, { traceId: "abc", spanId: hexId(8), name: "bad" }]),
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/traceId must be 16 bytes/);
    expect(server.store.spans.size).toBe(0);
  });

  it("answers 400 when span attributes are not an array", async () => {
    const server = await useDevServer();
    const body = otlpJsonExport([{ traceId: hexId(16), spanId: hexId(8), name: "s" }]);
    const span = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]! as Record<string, unknown>;
    span.attributes = { "svc.observation.type": "span" };

    const res = await server.request("POST", OTLP_PATH, { body });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/attributes must be an array/);
  });

  it("answers 400 when the protobuf body cannot be decoded", async () => {
    const server = await useDevServer();

    const res = await fetch(`${server.url}${OTLP_PATH}`, {
      method: "POST",
      headers: { authorization: server.basicAuth, "content-type": "application/x-protobuf" },
      body: new Uint8Array([0x0a, 0xff, 0xff, 0x01]),
    });

    expect(res.status).toBe(400);
  });

  it.each(["5", "four"])("answers 400 to x-svc-ingestion-version %s", async (version) => {
    const server = await useDevServer();

    const res = await server.request("POST", OTLP_PATH, { body: {}, headers: { "x-svc-ingestion-version": version } });

    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`Unsupported x-svc-ingestion-version: "${version}". Maximum supported: "4".`);
  });
});
