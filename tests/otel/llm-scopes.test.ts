import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { isKnownLLMInstrumentor, SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { useDevServer } from "../support/dev-server.ts";
import { endedSpan } from "../support/llm-spans.ts";

// The scope names as the packages name their tracers (read in each package's published build).
const JS_LLM_SCOPES = [
  "@arizeai/openinference-instrumentation-openai", // INSTRUMENTATION_NAME, 4.2.7
  "@arizeai/openinference-instrumentation-anthropic", // 0.2.8
  "@arizeai/openinference-instrumentation-openai-agents", // the OpenAI Agents SDK's bridge, 0.2.15
  "@arizeai/openinference-instrumentation-mcp",
  "@traceloop/instrumentation-anthropic", // super("@traceloop/instrumentation-anthropic"), 0.27.0
  "@traceloop/instrumentation-openai",
  "@traceloop/instrumentation-mcp", // 0.27.0
  "@opentelemetry/instrumentation-openai", // PACKAGE_NAME, 0.21.0
  "com.anthropic.sdk.typescript", // @anthropic-ai/sdk 1.14.0, INSTRUMENTATION_SCOPE
  "com.anthropic.sdk.typescript.bedrock", // the same with a platform
  "ai", // the AI SDK's legacy integration
  "gen_ai", // @ai-sdk/otel 1.0.173: trace.getTracer("gen_ai")
];

describe("default span filter: JavaScript LLM instrumentation", () => {
  it("keeps the spans of every JavaScript LLM instrumentation scope, without any gen_ai attribute", () => {
    const kept = JS_LLM_SCOPES.filter((scope) => isKnownLLMInstrumentor(endedSpan(scope)));

    expect(kept).toEqual(JS_LLM_SCOPES);
  });

  it("leaves out near misses of those names and other instrumentation", () => {
    const misses = [
      "@opentelemetry/instrumentation-http",
      "@opentelemetry/instrumentation-openaix",
      "@arizeai/openinference-core",
      "@traceloop/node-server-sdk",
      "com.anthropic.sdk.typescriptx",
      "x@arizeai/openinference-instrumentation-openai",
      "gen_aix",
    ];

    expect(misses.filter((scope) => isKnownLLMInstrumentor(endedSpan(scope)))).toEqual([]);
  });
});

describe("spans the default filter leaves out", () => {
  it("are counted in health(), one for each span", async () => {
    const server = await useDevServer();
    const processor = new SvcSpanProcessor(
      { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey },
      {},
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    onTestFinished(() => provider.shutdown());

    for (let i = 0; i < 3; i++) provider.getTracer("@opentelemetry/instrumentation-http").startSpan("GET").end();
    provider.getTracer("@arizeai/openinference-instrumentation-openai").startSpan("chat").end();
    await processor.forceFlush();

    expect(processor.health()).toMatchObject({ filteredOut: 3, sent: 1 });
  });

  it("that look like model calls are named by scope in svc doctor, with their counts", async () => {
    const server = await useDevServer();
    const processor = new SvcSpanProcessor(
      { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey },
      {},
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    setSvcTracerProvider(provider);
    onTestFinished(async () => {
      setSvcTracerProvider(null);
      await provider.shutdown();
    });
    // A wrapper whose scope says nothing, but whose attributes are OpenInference's; a scope named after a client.
    const wrapper = provider.getTracer("acme-wrapper");
    for (let i = 0; i < 2; i++)
      wrapper.startSpan("call", { attributes: { "llm.model_name": "gpt-5", "llm.token_count.prompt": 5 } }).end();
    provider.getTracer("my-openai-client").startSpan("request").end();
    provider.getTracer("@opentelemetry/instrumentation-http").startSpan("GET").end();
    const svc = new SvcClient({ baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey });
    onTestFinished(() => svc.shutdown());

    const report = await svc.doctor();

    const check = report.checks.find((c) => c.name === "model spans");
    expect(check?.status).toBe("warn");
    expect(check?.detail).toBe(
      'the span filter left out 3 spans that look like model calls, by scope: "acme-wrapper" (2), "my-openai-client" (1)',
    );
    expect(check?.fix).toContain('otelSpan.instrumentationScope.name === "acme-wrapper"');
    expect(processor.health().filteredOut).toBe(4);
  });
});
