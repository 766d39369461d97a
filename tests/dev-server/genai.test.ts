import { describe, expect, it } from "vitest";
import { hexId, otlpJsonExport, type SpanSpec, type TestDevServer, useDevServer } from "../support/dev-server.ts";

async function ingest(server: TestDevServer, spans: SpanSpec[], scope: string) {
  const res = await server.request("POST", "/api/public/otel/v1/traces", { body: otlpJsonExport(spans, scope) });
  expect(res.status).toBe(200);
}

async function observations(server: TestDevServer, traceId: string) {
  const res = await server.request(
    "GET",
    `/api/public/v2/observations?traceId=${traceId}&fields=core,basic,io,model,usage`,
  );
  expect(res.status).toBe(200);
  return res.body.data as {
    name: string;
    type: string;
    providedModelName: string | null;
    usageDetails: Record<string, number>;
    input: unknown;
    output: unknown;
  }[];
}

const byName = <T extends { name: string }>(list: T[], name: string) => list.find((o) => o.name === name);

describe("dev server: spans with OpenTelemetry GenAI attributes", () => {
  it("types a chat span as a generation with its model, usage, input and output messages", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const input = '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]';
    const output = '[{"role":"assistant","parts":[{"type":"text","content":"Hello"}]}]';
    await ingest(
      server,
      [
        {
          traceId,
          spanId: hexId(8),
          name: "chat gpt-x",
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-x",
            "gen_ai.response.model": "gpt-x-2026",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 20,
            "gen_ai.input.messages": input,
            "gen_ai.output.messages": output,
          },
        },
      ],
      "gen_ai",
    );

    const [chat] = await observations(server, traceId);

    expect(chat).toMatchObject({
      type: "GENERATION",
      providedModelName: "gpt-x-2026",
      usageDetails: { input: 10, output: 20, total: 30 },
      input,
      output,
    });
  });

  it("types invoke_agent as an agent and counts the usage it repeats from its model call once", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const [agent, step, chat] = [hexId(8), hexId(8), hexId(8)];
    const usage = { "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 20 };
    await ingest(
      server,
      [
        {
          traceId,
          spanId: agent,
          name: "invoke_agent m",
          attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "m", ...usage },
        },
        {
          traceId,
          spanId: step,
          parentSpanId: agent,
          name: "step 1",
          attributes: { "gen_ai.operation.name": "agent_step" },
        },
        {
          traceId,
          spanId: chat,
          parentSpanId: step,
          name: "chat m",
          attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", ...usage },
        },
      ],
      "gen_ai",
    );

    const list = await observations(server, traceId);

    expect(list.map((o) => [o.name, o.type]).sort()).toEqual([
      ["chat m", "GENERATION"],
      ["invoke_agent m", "AGENT"],
      ["step 1", "SPAN"],
    ]);
    const total = list.reduce((sum, o) => sum + (o.usageDetails.total ?? 0), 0);
    expect(total).toBe(30);
    expect(byName(list, "chat m")?.usageDetails).toEqual({ input: 10, output: 20, total: 30 });
  });

  it("types the legacy AI SDK model call span as a generation, with its model and usage", async () => {
    const server = await useDevServer();
    const traceId = hexId(16);
    const [parent, call] = [hexId(8), hexId(8)];
    const usage = { "ai.usage.inputTokens": 10, "ai.usage.outputTokens": 20, "ai.usage.totalTokens": 30 };
    await ingest(
      server,
      [
        {
          traceId,
          spanId: parent,
          name: "ai.generateText",
          attributes: {
            "ai.operationId": "ai.generateText",
            "ai.model.id": "m",
            "ai.response.text": "Hello",
            ...usage,
          },
        },
        {
          traceId,
          spanId: call,
          parentSpanId: parent,
          name: "ai.generateText.doGenerate",
          attributes: {
            "ai.operationId": "ai.generateText.doGenerate",
            "ai.model.id": "m",
            "ai.prompt.messages": "[]",
            "ai.response.text": "Hello",
            ...usage,
          },
        },
      ],
      "ai",
    );

    const list = await observations(server, traceId);

    expect(byName(list, "ai.generateText.doGenerate")).toMatchObject({
      type: "GENERATION",
      providedModelName: "m",
      usageDetails: { input: 10, output: 20, total: 30 },
      input: "[]",
      output: "Hello",
    });
    expect(byName(list, "ai.generateText")).toMatchObject({ type: "SPAN", usageDetails: {} });
  });
});
