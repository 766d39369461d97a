import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { installSvcTestKit } from "@svc/otel/testing";
import {
  getSvcTracerProvider,
  observe,
  propagateAttributes,
  startActiveObservation,
  startObservation,
} from "@svc/tracing";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import { startServer } from "../support/http-server.ts";

// The test kit used as a user uses it: installed once for the file, reset after each test, no server.

const kit = installSvcTestKit({
  provider: BasicTracerProvider,
  environment: "test",
  release: "1.2.3",
  mask: ({ data }) => (typeof data === "string" ? data.replace(/\b\d{4}-\d{4}-\d{4}-\d{4}\b/g, "[card]") : data),
});
afterEach(() => kit.reset());
afterAll(() => kit.uninstall());

async function answerQuestion(question: string): Promise<string> {
  return startActiveObservation("answer-question", async (root) => {
    root.update({ input: { question } });
    const search = observe(async (query: string) => [`doc about ${query}`], {
      name: "search-docs",
      asType: "retriever",
    });
    const docs = await search(question);
    const generation = root.startObservation(
      "draft-answer",
      { model: "gpt-4o", modelParameters: { temperature: 0.2 }, input: [{ role: "user", content: question }] },
      { asType: "generation" },
    );
    const text = `From ${docs.length} document: it records traces.`;
    generation.update({ output: text, usageDetails: { input: 12, output: 7, total: 19 } }).end();
    root.update({ output: text, metadata: { attempt: 2, cached: false, plan: { tier: "pro" } } });
    return text;
  });
}

describe("installSvcTestKit", () => {
  it("returns the observations as a tree, with type, input, output, model, usage and typed metadata", async () => {
    await answerQuestion("What does svc record?");

    const { traces, one, byType } = await kit.collect();

    expect(traces).toHaveLength(1);
    const [root] = traces[0]?.roots ?? [];
    expect(root?.name).toBe("answer-question");
    expect(root?.children.map((c) => [c.name, c.type])).toEqual([
      ["search-docs", "retriever"],
      ["draft-answer", "generation"],
    ]);
    expect(one("answer-question")).toMatchObject({
      type: "span",
      parentId: undefined,
      input: { question: "What does svc record?" },
      output: "From 1 document: it records traces.",
      metadata: { attempt: 2, cached: false, plan: { tier: "pro" } },
      level: "DEFAULT",
    });
    expect(one("search-docs")).toMatchObject({
      input: "What does svc record?",
      output: ["doc about What does svc record?"],
    });
    expect(byType("generation")).toEqual([
      expect.objectContaining({
        name: "draft-answer",
        parentId: root?.id,
        model: "gpt-4o",
        modelParameters: { temperature: 0.2 },
        usage: { input: 12, output: 7, total: 19 },
        input: [{ role: "user", content: "What does svc record?" }],
      }),
    ]);
    expect(traces[0]).toMatchObject({ input: { question: "What does svc record?" }, output: root?.output });
  });

  it("reads a generation's cost, prompt and completion start time, and keeps numbers sent as text as text", async () => {
    const firstToken = new Date("2026-03-01T10:00:00.250Z");
    startObservation(
      "stream",
      {
        costDetails: { input: 0.001, output: 0.002 },
        prompt: { name: "qa", version: 3, isFallback: false },
        completionStartTime: firstToken,
        output: 42,
      },
      { asType: "generation" },
    ).end();

    const { one } = await kit.collect();

    expect(one("stream")).toMatchObject({
      cost: { input: 0.001, output: 0.002 },
      prompt: { name: "qa", version: 3 },
      completionStartTime: "2026-03-01T10:00:00.250Z",
      output: "42",
    });
  });

  it("applies the pipeline's options: environment, release and the mask", async () => {
    await startActiveObservation("checkout", (span) => {
      span.update({ input: "pay with 4111-1111-1111-1111" });
    });

    const { one } = await kit.collect();

    expect(one("checkout")).toMatchObject({ input: "pay with [card]", environment: "test", release: "1.2.3" });
  });

  it("carries the trace attributes of propagateAttributes on each observation and on the trace", async () => {
    await propagateAttributes(
      { userId: "user-1", sessionId: "session-9", tags: ["beta"], metadata: { plan: "pro" }, traceName: "checkout" },
      () => startActiveObservation("handle", () => startObservation("child").end()),
    );

    const { one, traces } = await kit.collect();

    const attributes = { userId: "user-1", sessionId: "session-9", tags: ["beta"], metadata: { plan: "pro" } };
    expect(one("child").trace).toMatchObject({ name: "checkout", ...attributes });
    expect(traces[0]).toMatchObject({ name: "checkout", ...attributes, public: false });
  });

  it("records a failure as level ERROR with its status message", async () => {
    await startActiveObservation("fails", async () => {
      throw new Error("model timed out");
    }).catch(() => undefined);

    const { one } = await kit.collect();

    expect(one("fails")).toMatchObject({
      level: "ERROR",
      statusCode: 2,
      statusMessage: expect.stringContaining("model timed out"),
    });
  });

  it("leaves out the spans the default filter does not export", async () => {
    const provider = getSvcTracerProvider();
    provider.getTracer("my-http-client").startSpan("GET /users").end();
    provider
      .getTracer("my-llm-client")
      .startSpan("chat", { attributes: { "gen_ai.request.model": "gpt-4o" } })
      .end();

    const { observations } = await kit.collect();

    expect(observations.map((o) => o.name)).toEqual(["chat"]);
  });

  it("reads spans with GenAI attributes as the server does, counting the usage an agent span repeats once", async () => {
    const usage = { "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 20 };
    await startActiveObservation("handle-request", async () => {
      const tracer = getSvcTracerProvider().getTracer("gen_ai");
      await tracer.startActiveSpan(
        "invoke_agent m",
        { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "m", ...usage } },
        async (agent) => {
          tracer
            .startSpan("chat m", {
              attributes: {
                "gen_ai.operation.name": "chat",
                "gen_ai.response.model": "m-2026",
                "gen_ai.output.messages": '[{"role":"assistant","parts":[{"type":"text","content":"Hi"}]}]',
                ...usage,
              },
            })
            .end();
          agent.end();
        },
      );
    });

    const { one, observations } = await kit.collect();

    expect(one("invoke_agent m")).toMatchObject({ type: "agent", model: "m", usage: undefined });
    expect(one("chat m")).toMatchObject({
      type: "generation",
      model: "m-2026",
      usage: { input: 10, output: 20, total: 30 },
      output: [{ role: "assistant", parts: [{ type: "text", content: "Hi" }] }],
    });
    expect(observations.reduce((sum, o) => sum + (o.usage?.total ?? 0), 0)).toBe(30);
  });

  it("keeps the media of a base64 data URI and sends a reference in its place", async () => {
    const png = "data:image/png;base64,iVBORw0KGgo=";
    await startActiveObservation("describe-image", (span) => {
      span.update({ input: { image: png } });
    });

    const { one, media } = await kit.collect();

    const input = one("describe-image").input as { image: string };
    expect(input.image).toMatch(/^@@@svcMedia:type=image\/png\|id=[\w-]{22}\|source=base64_data_uri@@@$/);
    expect(media).toEqual([
      expect.objectContaining({
        contentType: "image/png",
        field: "input",
        observationId: one("describe-image").id,
        bytes: new Uint8Array(Buffer.from("iVBORw0KGgo=", "base64")),
      }),
    ]);
  });

  it("receives the scores sent through svc.score, from a client without keys", async () => {
    const svc = new SvcClient();
    onTestFinished(() => svc.shutdown());
    await startActiveObservation("rated", (span) => {
      svc.score.trace({ otelSpan: span.otelSpan }, { name: "helpfulness", value: 0.9 });
      svc.score.observation({ otelSpan: span.otelSpan }, { name: "label", value: "good", comment: "fine" });
    });

    const { scores, one } = await kit.collect();

    const { id, traceId } = one("rated");
    expect(scores).toEqual([
      expect.objectContaining({ name: "helpfulness", value: 0.9, traceId }),
      expect.objectContaining({ name: "label", value: "good", comment: "fine", traceId, observationId: id }),
    ]);
  });

  it("reads a span's raw svc attributes as the server does: type, level, OpenAI usage, completion time, tags", async () => {
    const span = getSvcTracerProvider().getTracer("svc-sdk").startSpan("raw-call");
    span.setAttributes({
      "svc.observation.type": "GENERATION",
      "svc.observation.level": "warn",
      "svc.observation.usage_details": JSON.stringify({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
      "svc.observation.completion_start_time": '"2026-01-02T03:04:05Z"',
      "svc.trace.tags": '["a", "b"]',
    });
    span.end();

    const { one, traces } = await kit.collect();

    expect(one("raw-call")).toMatchObject({
      type: "generation",
      level: "WARNING",
      usage: { input: 3, output: 4, total: 7 },
      completionStartTime: "2026-01-02T03:04:05.000Z",
    });
    expect(traces[0]?.tags).toEqual(["a", "b"]);
  });

  it("forgets everything on reset()", async () => {
    await startActiveObservation("before-reset", () => undefined);

    await kit.reset();

    expect((await kit.collect()).observations).toEqual([]);
  });

  it("says which observations there are when one() does not find exactly one", async () => {
    await startActiveObservation("a", () => startObservation("b").end());

    const { one } = await kit.collect();

    expect(() => one("c")).toThrow('expected one observation named "c", found 0; observations: "a", "b"');
  });

  it("lets every request other than delivery go to the network", async () => {
    const server = await startServer(() => ({ json: { data: [{ id: "p-1", name: "P" }] } }));
    onTestFinished(() => server.close());
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" });
    onTestFinished(() => svc.shutdown());

    await expect(svc.getProjectId()).resolves.toBe("p-1");
    expect(server.seen.map((r) => r.path)).toEqual(["/api/public/projects"]);
  });
});
