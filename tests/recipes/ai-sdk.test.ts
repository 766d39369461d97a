import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import { context, propagation, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startActiveObservation } from "@svc/tracing";
import { generateText, registerTelemetry } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { useDevServer } from "../support/dev-server.ts";

afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
  setSvcTracerProvider(null);
});

/** The AI SDK's mock model: answers "Hello, world!" with 10 input and 20 output tokens. */
function mockModel() {
  return new MockLanguageModelV4({
    modelId: "mock-model",
    doGenerate: async () => ({
      content: [{ type: "text", text: "Hello, world!" }],
      finishReason: { unified: "stop", raw: undefined },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 20, text: 20, reasoning: undefined },
      },
      warnings: [],
    }),
  });
}

interface ReadObservation {
  name: string;
  type: string;
  parentObservationId: string | null;
  providedModelName: string | null;
  usageDetails: Record<string, number>;
  output: unknown;
}

describe.each([
  { integration: "@ai-sdk/otel", telemetry: () => new OpenTelemetry(), options: {}, call: "chat mock-model" },
  {
    integration: "the legacy integration",
    telemetry: () => new LegacyOpenTelemetry(),
    options: { experimental_telemetry: { isEnabled: true } },
    call: "ai.generateText.doGenerate",
  },
])("the AI SDK 7 with $integration", ({ telemetry, options, call }) => {
  it("nests its spans under the svc observation, types the model call a generation with model and usage, and sums the trace's usage once", async () => {
    const server = await useDevServer();
    const processor = new SvcSpanProcessor(
      { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey },
      {},
    );
    const provider = new NodeTracerProvider({ spanProcessors: [processor] });
    provider.register();
    onTestFinished(() => provider.shutdown());
    registerTelemetry(telemetry());

    const traceIds = new Set<string>();
    for (let i = 0; i < 100; i++)
      await startActiveObservation(`svc-trace-${i}`, async (span) => {
        traceIds.add(span.traceId);
        await generateText({ model: mockModel(), prompt: "Hello, test!", ...options });
      });
    await provider.forceFlush();

    const first = [...traceIds][0] as string;
    const res = await server.request(
      "GET",
      `/api/public/v2/observations?traceId=${first}&fields=core,basic,io,model,usage`,
    );
    const observations = res.body.data as ReadObservation[];
    const root = observations.find((o) => o.name === "svc-trace-0");
    const generation = observations.find((o) => o.name === call);
    const summary = observations.map(
      (o) => `${o.name}: ${o.type} ${o.providedModelName ?? "-"} ${JSON.stringify(o.usageDetails)}`,
    );
    console.log(summary.join("\n"));

    expect(new Set([...server.store.spans.values()].map((s) => s.traceId)).size).toBe(100);
    expect(observations.filter((o) => o.parentObservationId === null)).toEqual([root]);
    expect(generation).toMatchObject({
      type: "GENERATION",
      providedModelName: "mock-model",
      usageDetails: { input: 10, output: 20, total: 30 },
    });
    expect(String(generation?.output)).toContain("Hello, world!");
    expect(observations.reduce((sum, o) => sum + (o.usageDetails.total ?? 0), 0)).toBe(30);
  });
});
