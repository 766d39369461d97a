import { context, trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { installSvcTestKit, type SvcTestKit } from "@svc/otel/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicSdkMessage,
  type LibrarySpan,
  openInferenceAnthropicMessage,
  openInferenceOpenAIChat,
  svcToDevServer,
} from "../support/llm-spans.ts";
import { captureLogs } from "../support/logs.ts";

// One model call counted once when one generation span wraps another: Traceloop's Anthropic span (an older release,
// without cache counts: 200 in, 150 out, 350 in all) around the Anthropic SDK's own span (1,500 in with 1,000 cache
// read and 300 cache creation, 150 out). The call read 1,650 tokens in all, once.

const traceloopWithoutCache: LibrarySpan = {
  scope: "@traceloop/instrumentation-anthropic",
  name: "chat claude-sonnet-4-5",
  attributes: {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "claude-sonnet-4-5",
    "gen_ai.response.model": "claude-sonnet-4-5-20250929",
    "gen_ai.usage.total_tokens": 350,
    "gen_ai.usage.output_tokens": 150,
    "gen_ai.usage.input_tokens": 200,
  },
  children: [anthropicSdkMessage],
};

const ANTHROPIC_USAGE = { input: 200, input_cache_creation: 300, input_cached_tokens: 1000, output: 150, total: 1650 };

const sumOfTotals = (usages: (Record<string, number> | undefined)[]) =>
  usages.reduce((sum, usage) => sum + (usage?.total ?? 0), 0);

describe("one model call counted once, through SvcSpanProcessor", () => {
  it("the dev server totals a Traceloop generation around the Anthropic SDK's own at 1,650, with the cache details", async () => {
    const { record } = await svcToDevServer();

    const observations = await record(traceloopWithoutCache);

    const outer = observations.find((o) => o.name === "chat claude-sonnet-4-5");
    const inner = observations.find((o) => o.name === "anthropic.messages.create");
    expect(inner?.usageDetails).toEqual(ANTHROPIC_USAGE);
    expect(outer?.usageDetails).toEqual({});
    expect(outer?.type).toBe("GENERATION");
    expect(sumOfTotals(observations.map((o) => o.usageDetails))).toBe(1650);
  });

  it("OpenInference's Anthropic span around the Anthropic SDK's own: both exported, the call counted once", async () => {
    const { record } = await svcToDevServer();

    const observations = await record({ ...openInferenceAnthropicMessage, children: [anthropicSdkMessage] });

    const outer = observations.find((o) => o.name === "Anthropic Messages");
    const inner = observations.find((o) => o.name === "anthropic.messages.create");
    expect(inner?.parentObservationId).toBe(outer?.id);
    expect(inner?.usageDetails).toEqual(ANTHROPIC_USAGE);
    expect(outer).toMatchObject({ type: "GENERATION", usageDetails: {} });
    expect(sumOfTotals(observations.map((o) => o.usageDetails))).toBe(1650);
  });

  it("a streamed call whose two spans land in traces of their own: counted on the SDK's span, with one warning", async () => {
    const logs = captureLogs();
    const { record } = await svcToDevServer();
    const traceloop: LibrarySpan = { ...traceloopWithoutCache, children: [] };

    // As the streamed call leaves them: the SDK's own span in one trace, the instrumentation's in another, twice.
    const sdkFirst = [...(await record(anthropicSdkMessage)), ...(await record(traceloop))];
    const traceloopFirst = [...(await record(traceloop)), ...(await record(anthropicSdkMessage))];

    for (const observations of [sdkFirst, traceloopFirst]) {
      expect(observations.find((o) => o.name === "anthropic.messages.create")?.usageDetails).toEqual(ANTHROPIC_USAGE);
      expect(observations.find((o) => o.name === "chat claude-sonnet-4-5")).toMatchObject({
        type: "GENERATION",
        usageDetails: {},
      });
      expect(sumOfTotals(observations.map((o) => o.usageDetails))).toBe(1650);
    }
    const warnings = logs.filter((l) => l.level === "warn" && l.message.includes("both record each Anthropic call"));
    expect(warnings.map((l) => l.message)).toEqual([
      expect.stringContaining('set ANTHROPIC_OPEN_TELEMETRY=false or remove "@traceloop/instrumentation-anthropic"'),
    ]);
  });

  it("an agent span that sums its calls' tokens is not counted again", async () => {
    const { record } = await svcToDevServer();
    const agent: LibrarySpan = {
      scope: "@arizeai/openinference-instrumentation-openai-agents",
      name: "Agent workflow",
      attributes: {
        "openinference.span.kind": "AGENT",
        "llm.token_count.prompt": 1200,
        "llm.token_count.completion": 300,
        "llm.token_count.total": 1500,
      },
      children: [{ ...openInferenceOpenAIChat, children: [] }],
    };

    const observations = await record(agent);

    expect(observations.find((o) => o.name === "Agent workflow")?.usageDetails).toEqual({});
    expect(sumOfTotals(observations.map((o) => o.usageDetails))).toBe(1500);
  });
});

describe("one model call counted once, in the test kit", () => {
  let kit: SvcTestKit | undefined;
  afterEach(async () => {
    await kit?.uninstall();
    kit = undefined;
  });

  function emit(provider: SvcTestKit["provider"], span: LibrarySpan, parent = context.active()): void {
    const started = provider.getTracer(span.scope).startSpan(span.name, { attributes: span.attributes }, parent);
    for (const child of span.children ?? []) emit(provider, child, trace.setSpan(parent, started));
    started.end();
  }

  it("exports the wrapping generation with an explicit empty usage, which the server takes before its own reading", async () => {
    kit = installSvcTestKit({ provider: BasicTracerProvider });
    emit(kit.provider, traceloopWithoutCache);

    const { one, observations } = await kit.collect();

    expect(one("chat claude-sonnet-4-5").attributes["svc.observation.usage_details"]).toBe("{}");
    expect(one("chat claude-sonnet-4-5").usage).toBeUndefined();
    expect(JSON.parse(String(one("anthropic.messages.create").attributes["svc.observation.usage_details"]))).toEqual(
      ANTHROPIC_USAGE,
    );
    expect(sumOfTotals(observations.map((o) => o.usage))).toBe(1650);
  });

  it("exports another instrumentation's span of an Anthropic call with an empty usage once the SDK's own is seen", async () => {
    kit = installSvcTestKit({ provider: BasicTracerProvider });
    emit(kit.provider, anthropicSdkMessage);
    emit(kit.provider, { ...traceloopWithoutCache, children: [] }, context.active());

    const { one } = await kit.collect();

    expect(one("chat claude-sonnet-4-5").attributes["svc.observation.usage_details"]).toBe("{}");
    expect(JSON.parse(String(one("anthropic.messages.create").attributes["svc.observation.usage_details"]))).toEqual(
      ANTHROPIC_USAGE,
    );
  });

  it("keeps the wrapping generation's usage when the call below it is not exported", async () => {
    kit = installSvcTestKit({
      provider: BasicTracerProvider,
      shouldExportSpan: ({ otelSpan }) => otelSpan.instrumentationScope?.name !== "com.anthropic.sdk.typescript",
    });
    emit(kit.provider, traceloopWithoutCache);

    const { observations } = await kit.collect();

    expect(observations.map((o) => [o.name, o.usage])).toEqual([
      ["chat claude-sonnet-4-5", { input: 200, output: 150, total: 350 }],
    ]);
  });
});
