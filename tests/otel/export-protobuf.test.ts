import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { describe, expect, it, onTestFinished } from "vitest";
import { type ReplyFn, startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { exportedSpans, otlpRequests, svcProvider } from "../support/otel.ts";
import { decodeTraceRequest, spansOf, withoutDefaults } from "../support/otlp-protobuf.ts";

const KEYS = { publicKey: "pk-test", secretKey: "sk-test" };
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001", "hex");
const DATA_URI = `data:image/png;base64,${PNG.toString("base64")}`;
const CUT_MARKER = "...[truncated: the span was too large to send]";

async function sink(reply?: ReplyFn) {
  const server = await startServer(reply);
  onTestFinished(server.close);
  return server;
}

/** The spans of every OTLP request the server saw, decoded from protobuf. */
function decodedSpans(server: TestServer) {
  return otlpRequests(server).flatMap((request) => spansOf(decodeTraceRequest(request.body)));
}

/** The attributes of a decoded span as a plain object of their values. */
function valuesOf(span: Record<string, unknown>): Record<string, unknown> {
  const attributes = (span.attributes ?? []) as { key: string; value: Record<string, unknown> }[];
  return Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
}

/** Answers the media routes as the server does (media id from the hash, upload to a bucket path), 200 {} otherwise. */
function mediaReply(server: () => TestServer | undefined): ReplyFn {
  return (req) => {
    if (req.method === "POST" && req.path === "/api/public/media") {
      const { sha256Hash } = req.json as { sha256Hash: string };
      const mediaId = sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22);
      return { json: { mediaId, uploadUrl: `${server()?.url}/bucket/${mediaId}` } };
    }
    return { status: 200, json: {} };
  };
}

describe("OTLP/protobuf export on the wire", () => {
  it("posts exactly what OpenTelemetry's protobuf serializer makes of the spans a provider records", async () => {
    const server = await sink();
    const recorded = new InMemorySpanExporter();
    const processor = new SvcSpanProcessor(
      {
        baseUrl: server.url,
        ...KEYS,
        protocol: "http/protobuf",
        compression: "none",
        mediaUploadEnabled: false,
        shouldExportSpan: () => true,
      },
      {},
    );
    const provider = new BasicTracerProvider({
      spanProcessors: [processor, new SimpleSpanProcessor(recorded)],
      spanLimits: { attributeCountLimit: 8, eventCountLimit: 2, linkCountLimit: 1 },
    });
    onTestFinished(() => provider.shutdown());
    const svc = provider.getTracer("svc-sdk", "6.0.0", { schemaUrl: "https://opentelemetry.io/schemas/1.30.0" });
    const other = provider.getTracer("openinference.instrumentation.openai");
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
      isRemote: true,
      traceState: createTraceState("vendor=abc,other=1"),
    });

    const root = svc.startSpan(
      "root",
      {
        kind: SpanKind.SERVER,
        attributes: { text: "grüße 😀", int: -42, big: 2 ** 40, dbl: 0.1, yes: true, list: ["a", "b"], nums: [1, 2] },
      },
      remote,
    );
    root.setAttributes({ extra1: 1, extra2: 2, extra3: 3 }); // beyond the limit: dropped and counted
    for (let i = 0; i < 3; i++) root.addEvent(`event ${i}`, { i }); // one dropped
    const child = other.startSpan("chat", {
      kind: SpanKind.CLIENT,
      links: [{ context: root.spanContext(), attributes: { why: "follows" } }, { context: root.spanContext() }],
    });
    child.setStatus({ code: SpanStatusCode.ERROR, message: "rate limited" });
    child.end();
    root.setStatus({ code: SpanStatusCode.OK });
    root.end();
    await processor.forceFlush();

    const [request] = otlpRequests(server);
    expect(request?.headers["content-type"]).toBe("application/x-protobuf");
    const expected = ProtobufTraceSerializer.serializeRequest(recorded.getFinishedSpans() as never) as Uint8Array;
    expect(request?.body.equals(Buffer.from(expected))).toBe(true);
  });

  it.each(["gzip", "none"] as const)(
    "sends, with compression %s, a body that decodes to the OTLP/JSON body of the same spans, masked, filtered and with media replaced alike",
    async (compression) => {
      let jsonServer: TestServer | undefined;
      let protobufServer: TestServer | undefined;
      jsonServer = await sink(mediaReply(() => jsonServer));
      protobufServer = await sink(mediaReply(() => protobufServer));
      const shared: SvcSpanProcessorParams = {
        ...KEYS,
        compression,
        mask: ({ data }) => (typeof data === "string" ? data.replaceAll("secret", "***") : data),
        shouldExportSpan: ({ otelSpan }) => otelSpan.name !== "skipped",
      };
      const json = new SvcSpanProcessor({ ...shared, baseUrl: jsonServer.url }, {});
      const protobuf = new SvcSpanProcessor({ ...shared, baseUrl: protobufServer.url, protocol: "http/protobuf" }, {});
      const provider = new BasicTracerProvider({ spanProcessors: [json, protobuf] });
      onTestFinished(() => provider.shutdown());
      const svc = provider.getTracer("svc-sdk");

      const root = svc.startSpan("agent", {
        attributes: {
          "svc.observation.input": JSON.stringify({ q: "the secret plan", image: DATA_URI }),
          "svc.observation.metadata.note": "secret note",
          "svc.observation.usage_details": '{"input":3}',
        },
      });
      root.addEvent("step", { n: 1 });
      svc.startSpan("skipped").end();
      const child = svc.startSpan("tool", { links: [{ context: root.spanContext() }] });
      child.setStatus({ code: SpanStatusCode.ERROR, message: "secret failure" });
      child.end();
      root.end();
      await Promise.all([json.forceFlush(), protobuf.forceFlush()]);

      const [sentJson] = otlpRequests(jsonServer);
      const [sentProtobuf] = otlpRequests(protobufServer);
      expect(sentProtobuf?.headers["content-type"]).toBe("application/x-protobuf");
      expect(sentProtobuf?.headers["content-encoding"]).toBe(compression === "gzip" ? "gzip" : undefined);
      const decoded = decodeTraceRequest(sentProtobuf?.body ?? Buffer.alloc(0));
      expect(withoutDefaults(decoded)).toEqual(withoutDefaults(sentJson?.json));
      expect(spansOf(decoded).map((s) => s.name)).toEqual(["tool", "agent"]);
      const input = String(valuesOf(spansOf(decoded)[1] ?? {})["svc.observation.input"]);
      expect(input).toContain("the *** plan");
      expect(input).toContain("@@@svcMedia:type=image/png");
      const uploaded = protobufServer.seen.filter((r) => r.method === "PUT" && r.path.startsWith("/bucket/"));
      expect(uploaded.map((r) => r.rawBody.equals(PNG))).toEqual([true]);
    },
  );

  it("splits a protobuf batch larger than maxRequestBytes and cuts a single span that alone is larger", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server, {
      protocol: "http/protobuf",
      compression: "none",
      maxRequestBytes: 1024,
      mediaUploadEnabled: false,
    });

    for (let i = 0; i < 6; i++)
      svc.startSpan(`small ${i}`, { attributes: { "svc.observation.input": "x".repeat(300) } }).end();
    svc.startSpan("huge", { attributes: { "svc.observation.input": "y".repeat(5000) } }).end();
    await processor.forceFlush();

    const requests = otlpRequests(server);
    expect(requests.length).toBeGreaterThan(2);
    for (const request of requests) expect(request.rawBody.length).toBeLessThanOrEqual(1024);
    const spans = decodedSpans(server);
    expect(spans.map((s) => s.name).sort()).toEqual([
      "huge",
      "small 0",
      "small 1",
      "small 2",
      "small 3",
      "small 4",
      "small 5",
    ]);
    const huge = String(valuesOf(spans.find((s) => s.name === "huge") ?? {})["svc.observation.input"]);
    expect(huge.endsWith(CUT_MARKER)).toBe(true);
    expect(huge.startsWith("yyy")).toBe(true);
  });

  it("halves a protobuf batch the server refuses with 413 until each part is accepted", async () => {
    const server = await sink((req) =>
      req.path.endsWith("/traces") && req.rawBody.length > 2500 ? { status: 413 } : { status: 200, json: {} },
    );
    const { svc, processor } = svcProvider(server, {
      protocol: "http/protobuf",
      compression: "none",
      mediaUploadEnabled: false,
    });

    for (let i = 0; i < 8; i++)
      svc.startSpan(`s${i}`, { attributes: { "svc.observation.input": `${i}`.repeat(600) } }).end();
    await processor.forceFlush();

    const accepted = otlpRequests(server).filter((r) => r.rawBody.length <= 2500);
    expect(accepted.length).toBeGreaterThan(1);
    const names = accepted.flatMap((r) => spansOf(decodeTraceRequest(r.body)).map((s) => s.name));
    expect(names).toEqual(["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]);
  });
});

describe("the protocol setting", () => {
  const rows: {
    name: string;
    params: Record<string, unknown>;
    env: Record<string, string>;
    protobuf: boolean;
    warning?: RegExp;
  }[] = [
    {
      name: "the option http/protobuf wins over the variables",
      params: { protocol: "http/protobuf" },
      env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      protobuf: true,
    },
    {
      name: "the option http/json wins over the variables",
      params: { protocol: "http/json" },
      env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" },
      protobuf: false,
    },
    {
      name: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL wins over OTEL_EXPORTER_OTLP_PROTOCOL",
      params: {},
      env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      protobuf: true,
    },
    {
      name: "OTEL_EXPORTER_OTLP_PROTOCOL applies when it is the only setting, in any case",
      params: {},
      env: { OTEL_EXPORTER_OTLP_PROTOCOL: " HTTP/Protobuf " },
      protobuf: true,
    },
    { name: "http/json is the default", params: {}, env: {}, protobuf: false },
    {
      name: "grpc in OTEL_EXPORTER_OTLP_TRACES_PROTOCOL falls through to OTEL_EXPORTER_OTLP_PROTOCOL",
      params: {},
      env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" },
      protobuf: true,
      warning:
        /ignoring OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc".*; using "http\/protobuf" \(OTEL_EXPORTER_OTLP_PROTOCOL\)/,
    },
    {
      name: "grpc in OTEL_EXPORTER_OTLP_PROTOCOL falls through to the default",
      params: {},
      env: { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      protobuf: false,
      warning: /ignoring OTEL_EXPORTER_OTLP_PROTOCOL="grpc".*; using "http\/json" \(default\)/,
    },
    {
      name: "an invalid option falls through to the variables",
      params: { protocol: "protobuf" },
      env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" },
      protobuf: true,
      warning: /option protocol="protobuf" is not one of "http\/json", "http\/protobuf"; using "http\/protobuf"/,
    },
  ];

  it.each(rows)("$name", async ({ params, env, protobuf, warning }) => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, params as SvcSpanProcessorParams, env);

    svc.startSpan("work").end();
    await processor.forceFlush();

    const [request] = otlpRequests(server);
    expect(request?.headers["content-type"]).toBe(protobuf ? "application/x-protobuf" : "application/json");
    const spans = protobuf ? decodedSpans(server) : exportedSpans(server);
    expect(spans.map((s) => s.name)).toEqual(["work"]);
    const warnings = logs.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings).toEqual(warning ? [expect.stringMatching(warning)] : []);
  });
});
