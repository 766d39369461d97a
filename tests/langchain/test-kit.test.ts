import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { CallbackHandler } from "@svc/langchain";
import { installSvcTestKit } from "@svc/otel/testing";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";

// A LangChain app's own test, written with the test kit of @svc/otel: no server, no in-memory exporter of its own.

const kit = installSvcTestKit({ provider: BasicTracerProvider });
afterEach(() => kit.reset());
afterAll(() => kit.uninstall());

/** The app under test: a prompt, a chat model, a parser and a post-processing step. */
function supportChain(model: FakeListChatModel) {
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You answer questions about {product}."],
    ["human", "{question}"],
  ]);
  const shorten = RunnableLambda.from((text: string) => text.split(".")[0] ?? text).withConfig({ runName: "shorten" });
  return prompt.pipe(model).pipe(new StringOutputParser()).pipe(shorten);
}

describe("a LangChain chain under the test kit", () => {
  it("records the chain as one trace: the sequence, its steps and the generation, with the handler's attributes", async () => {
    const handler = new CallbackHandler({ userId: "user-7", sessionId: "chat-1", tags: ["support"] });
    const chain = supportChain(new FakeListChatModel({ responses: ["It records traces. And scores."] }));

    const answer = await chain.invoke({ product: "svc", question: "What does it do?" }, { callbacks: [handler] });

    const { traces, one, byType } = await kit.collect();
    expect(answer).toBe("It records traces");
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      id: handler.last_trace_id,
      userId: "user-7",
      sessionId: "chat-1",
      tags: ["support"],
    });
    const [sequence] = traces[0]?.roots ?? [];
    expect(sequence).toMatchObject({
      name: "RunnableSequence",
      input: { product: "svc", question: "What does it do?" },
      output: "It records traces",
    });
    expect(sequence?.children.map((c) => [c.name, c.type])).toEqual([
      ["ChatPromptTemplate", "span"],
      ["FakeListChatModel", "generation"],
      ["StrOutputParser", "span"],
      ["shorten", "span"],
    ]);
    expect(byType("generation")).toEqual([
      expect.objectContaining({
        parentId: sequence?.id,
        input: [
          { role: "system", content: "You answer questions about svc." },
          { role: "user", content: "What does it do?" },
        ],
        output: { role: "assistant", content: "It records traces. And scores." },
      }),
    ]);
    // LangChain hands a lambda a string input as { input }.
    expect(one("shorten")).toMatchObject({
      input: { input: "It records traces. And scores." },
      output: "It records traces",
    });
  });

  it("records a failing step at level ERROR, and the score the app sends for the first trace", async () => {
    const handler = new CallbackHandler();
    const svc = new SvcClient();
    onTestFinished(() => svc.shutdown());
    const chain = supportChain(new FakeListChatModel({ responses: ["Fine."] }));

    await chain.invoke({ product: "svc", question: "Ok?" }, { callbacks: [handler] });
    svc.score.create({ name: "user-feedback", value: 1, traceId: handler.last_trace_id });
    const broken = ChatPromptTemplate.fromTemplate("{question}").pipe(
      RunnableLambda.from(() => {
        throw new Error("rate limited");
      }).withConfig({ runName: "call-model" }),
    );
    await broken.invoke({ question: "again?" }, { callbacks: [handler] }).catch(() => undefined);

    const { one, scores, traces } = await kit.collect();
    expect(one("call-model")).toMatchObject({ level: "ERROR", statusMessage: expect.stringContaining("rate limited") });
    expect(scores).toEqual([expect.objectContaining({ name: "user-feedback", value: 1, traceId: traces[0]?.id })]);
  });
});
