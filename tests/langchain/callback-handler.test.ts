import { readFileSync } from "node:fs";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { StringOutputParser } from "@langchain/core/output_parsers";
import type { ChatResult } from "@langchain/core/outputs";
import { ChatPromptTemplate, PromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { type DynamicStructuredTool, tool } from "@langchain/core/tools";
import { FakeListChatModel, FakeLLM, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import type { Span, Tracer, TracerProvider } from "@opentelemetry/api";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A, setSvcTracerProvider, startActiveObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { hrToMs, jsonAttribute, singleTraceId, typeOf } from "../support/langchain.ts";
import { captureLogs } from "../support/logs.ts";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const tracing = useInMemoryTracing();

/** A chat model that reports its model, sampling parameters and token usage like a provider would. */
class UsageChatModel extends BaseChatModel {
  _llmType(): string {
    return "usage-fake";
  }

  override invocationParams(): Record<string, unknown> {
    return { model: "fake-gpt", temperature: 0.3, max_tokens: 50 };
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const message = new AIMessage({
      content: "reply",
      response_metadata: { model_name: "fake-gpt-2025-01" },
      usage_metadata: {
        input_tokens: 120,
        output_tokens: 45,
        total_tokens: 165,
        input_token_details: { cache_read: 100 },
        output_token_details: { reasoning: 20 },
      },
    });
    return { generations: [{ text: "reply", message }] };
  }
}

class ListRetriever extends BaseRetriever {
  override lc_namespace = ["tests", "retrievers"];

  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    return [new Document({ pageContent: `about ${query}`, metadata: { source: "kb" } })];
  }
}

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "Answer briefly."],
  ["human", "{question}"],
]);

describe("CallbackHandler with @langchain/core runnables", () => {
  it("records a sequence as a span with its prompt, generation and parser nested under it", async () => {
    const chain = RunnableSequence.from([
      prompt,
      new FakeListChatModel({ responses: ["Paris"] }),
      new StringOutputParser(),
    ]);

    const answer = await chain.invoke({ question: "Capital of France?" }, { callbacks: [new CallbackHandler()] });

    expect(answer).toBe("Paris");
    const spans = tracing.spans();
    singleTraceId(spans);
    const root = tracing.span("RunnableSequence");
    expect(parentId(root)).toBeUndefined();
    expect(typeOf(root)).toBe("span");
    expect(jsonAttribute(root, A.OBSERVATION_INPUT)).toEqual({ question: "Capital of France?" });
    expect(root.attributes[A.OBSERVATION_OUTPUT]).toBe("Paris");
    const children = spans.filter((s) => parentId(s) === root.spanContext().spanId);
    expect(children.map((s) => [s.name, typeOf(s)])).toEqual([
      ["ChatPromptTemplate", "span"],
      ["FakeListChatModel", "generation"],
      ["StrOutputParser", "span"],
    ]);
  });

  it("records a parser's message input and a prompt value as LangChain serialises them, as the previous major did", async () => {
    const sequence = prompt.pipe(new FakeListChatModel({ responses: ["Paris"] })).pipe(new StringOutputParser());
    const text = PromptTemplate.fromTemplate("Say {word}").pipe(RunnableLambda.from((value: unknown) => String(value)));

    await sequence.invoke({ question: "Capital of France?" }, { callbacks: [new CallbackHandler()] });
    await text.invoke({ word: "hi" }, { callbacks: [new CallbackHandler()] });

    const serialized = (path: string[], kwargs: Record<string, unknown>) => ({
      lc: 1,
      type: "constructor",
      id: ["langchain_core", ...path],
      kwargs,
    });
    expect(jsonAttribute(tracing.span("StrOutputParser"), A.OBSERVATION_INPUT)).toEqual(
      serialized(["messages", "AIMessage"], {
        content: "Paris",
        tool_calls: [],
        invalid_tool_calls: [],
        additional_kwargs: {},
        response_metadata: {},
        id: expect.any(String),
      }),
    );
    const promptValue = serialized(["prompt_values", "StringPromptValue"], { value: "Say hi" });
    expect(jsonAttribute(tracing.span("PromptTemplate"), A.OBSERVATION_OUTPUT)).toEqual(promptValue);
    expect(jsonAttribute(tracing.span("RunnableLambda"), A.OBSERVATION_INPUT)).toEqual(promptValue);
    expect(jsonAttribute(tracing.span("ChatPromptTemplate"), A.OBSERVATION_OUTPUT)).toEqual({
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "Capital of France?" },
      ],
    });
  });

  it("records a chat generation's messages, model, parameters, output and usage with cached and reasoning tokens", async () => {
    const chain = prompt.pipe(new UsageChatModel({}));

    await chain.invoke({ question: "Why?" }, { callbacks: [new CallbackHandler()] });

    const generation = tracing.span("UsageChatModel");
    expect(typeOf(generation)).toBe("generation");
    expect(jsonAttribute(generation, A.OBSERVATION_INPUT)).toEqual([
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "Why?" },
    ]);
    expect(generation.attributes[A.OBSERVATION_MODEL]).toBe("fake-gpt-2025-01");
    expect(jsonAttribute(generation, A.OBSERVATION_MODEL_PARAMETERS)).toEqual({ temperature: 0.3, max_tokens: 50 });
    expect(jsonAttribute(generation, A.OBSERVATION_OUTPUT)).toEqual({ role: "assistant", content: "reply" });
    expect(jsonAttribute(generation, A.OBSERVATION_USAGE_DETAILS)).toEqual({
      input: 20,
      output: 25,
      total: 165,
      input_cache_read: 100,
      output_reasoning: 20,
    });
  });

  it("records a text LLM run as a generation with the prompt as input and the text as output", async () => {
    await new FakeLLM({ response: "forty-two" }).invoke("What is the answer?", { callbacks: [new CallbackHandler()] });

    const generation = tracing.span("FakeLLM");
    expect(typeOf(generation)).toBe("generation");
    expect(jsonAttribute(generation, A.OBSERVATION_INPUT)).toEqual(["What is the answer?"]);
    expect(generation.attributes[A.OBSERVATION_OUTPUT]).toBe("forty-two");
  });

  it("sets the completion start time of a streamed generation to the arrival of the first token", async () => {
    const model = new FakeStreamingChatModel({
      sleep: 5,
      chunks: [new AIMessageChunk("Hel"), new AIMessageChunk("lo"), new AIMessageChunk("!")],
    });

    const received: string[] = [];
    for await (const chunk of await model.stream("hi", { callbacks: [new CallbackHandler()] })) {
      received.push(String(chunk.content));
    }

    expect(received.join("")).toBe("Hello!");
    const generation = tracing.span("FakeStreamingChatModel");
    const completionStart = Date.parse(String(generation.attributes[A.OBSERVATION_COMPLETION_START_TIME]));
    // Span times come from the performance clock, the completion start from Date: allow for the two drifting by a ms.
    expect(completionStart).toBeGreaterThanOrEqual(Math.floor(hrToMs(generation.startTime)) - 1);
    expect(completionStart).toBeLessThanOrEqual(Math.ceil(hrToMs(generation.endTime)) + 1);
    expect(jsonAttribute(generation, A.OBSERVATION_OUTPUT)).toEqual({ role: "assistant", content: "Hello!" });
  });

  it("records a failing model run and its chain at level ERROR with the message, and passes the error on", async () => {
    const model = new FakeListChatModel({ responses: ["never"] });
    const chain = prompt.pipe(model);

    const error = await chain
      .invoke({ question: "q" }, { callbacks: [new CallbackHandler()], thrownErrorString: "quota exceeded" } as never)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("quota exceeded");
    for (const name of ["FakeListChatModel", "RunnableSequence"]) {
      const span = tracing.span(name);
      expect(span.attributes[A.OBSERVATION_LEVEL]).toBe("ERROR");
      expect(span.attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("Error: quota exceeded");
    }
  });

  it("records tool calls as tools with their input and output, and failing tools at level ERROR", async () => {
    const schema = {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    } as const;
    const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
      name: "add",
      description: "Adds two numbers.",
      schema,
    }) as DynamicStructuredTool;
    const broken = tool(
      async (_: { a: number; b: number }): Promise<string> => {
        throw new Error("service down");
      },
      { name: "lookup", description: "Looks up.", schema },
    ) as DynamicStructuredTool;
    const handler = new CallbackHandler();

    await add.invoke({ a: 2, b: 3 }, { callbacks: [handler] });
    await broken.invoke({ a: 1, b: 1 }, { callbacks: [handler] }).catch(() => undefined);

    const ok = tracing.span("add");
    expect(typeOf(ok)).toBe("tool");
    expect(jsonAttribute(ok, A.OBSERVATION_INPUT)).toEqual({ a: 2, b: 3 });
    expect(ok.attributes[A.OBSERVATION_OUTPUT]).toBe("5");
    const failed = tracing.span("lookup");
    expect(typeOf(failed)).toBe("tool");
    expect(failed.attributes[A.OBSERVATION_LEVEL]).toBe("ERROR");
    expect(failed.attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("Error: service down");
  });

  it("records a retriever as a span with the query as input and the documents as output", async () => {
    await new ListRetriever().invoke("owls", { callbacks: [new CallbackHandler()] });

    const retriever = tracing.span("ListRetriever");
    expect(typeOf(retriever)).toBe("span");
    expect(retriever.attributes[A.OBSERVATION_INPUT]).toBe("owls");
    expect(jsonAttribute(retriever, A.OBSERVATION_OUTPUT)).toEqual([
      { pageContent: "about owls", metadata: { source: "kb" } },
    ]);
  });

  it("records an agent action as a span named after its tool, nested under the agent's run", async () => {
    const manager = CallbackManager.configure([new CallbackHandler()]);
    const run = await manager!.handleChainStart(
      { lc: 1, type: "not_implemented", id: ["AgentExecutor"] },
      { input: "2+3?" },
    );
    const action = { tool: "add", toolInput: { a: 2, b: 3 }, log: "I should add." };
    await run.handleAgentAction(action);
    await run.handleAgentEnd({ returnValues: { output: "5" }, log: "done" });
    await run.handleChainEnd({ output: "5" });

    const agent = tracing.span("add");
    expect(typeOf(agent)).toBe("span");
    expect(jsonAttribute(agent, A.OBSERVATION_INPUT)).toEqual(action);
    expect(jsonAttribute(agent, A.OBSERVATION_OUTPUT)).toEqual({ returnValues: { output: "5" }, log: "done" });
    expect(parentId(agent)).toBe(tracing.span("AgentExecutor").spanContext().spanId);
  });

  it("nests the runs under the active svc observation", async () => {
    const chain = prompt.pipe(new FakeListChatModel({ responses: ["ok"] }));

    await startActiveObservation("handle-request", () =>
      chain.invoke({ question: "q" }, { callbacks: [new CallbackHandler()] }),
    );

    const outer = tracing.span("handle-request");
    singleTraceId(tracing.spans());
    expect(parentId(tracing.span("RunnableSequence"))).toBe(outer.spanContext().spanId);
  });

  it("also records the trace attributes on the active svc observation the run starts in", async () => {
    const chain = prompt.pipe(new FakeListChatModel({ responses: ["ok"] }));

    await startActiveObservation("handle-request", () =>
      chain.invoke({ question: "q" }, { callbacks: [new CallbackHandler({ userId: "user-1", sessionId: "s-1" })] }),
    );

    expect(tracing.span("handle-request").attributes).toMatchObject({
      [A.TRACE_USER_ID]: "user-1",
      [A.TRACE_SESSION_ID]: "s-1",
    });
  });

  it("records user, session, tags, version and trace metadata on every observation of the run", async () => {
    const handler = new CallbackHandler({
      userId: "user-1",
      sessionId: "session-1",
      tags: ["prod"],
      version: "v7",
      traceMetadata: { tenant: "acme" },
    });
    const chain = prompt.pipe(new FakeListChatModel({ responses: ["ok"] }));

    await chain.invoke({ question: "q" }, { callbacks: [handler], tags: ["checkout"] });

    const spans = tracing.spans();
    expect(spans).toHaveLength(3);
    for (const span of spans) {
      expect(span.attributes).toMatchObject({
        [A.TRACE_USER_ID]: "user-1",
        [A.TRACE_SESSION_ID]: "session-1",
        [A.VERSION]: "v7",
        [`${A.TRACE_METADATA}.tenant`]: "acme",
      });
      expect(span.attributes[A.TRACE_TAGS]).toEqual(["checkout", "prod"]);
    }
  });

  it("takes user and session from the run's metadata over the handler's options", async () => {
    const handler = new CallbackHandler({ userId: "default-user", sessionId: "default-session" });
    const chain = prompt.pipe(new FakeListChatModel({ responses: ["ok"] }));

    await chain.invoke(
      { question: "q" },
      { callbacks: [handler], metadata: { svcUserId: "user-9", svcSessionId: "session-9" } },
    );

    const root = tracing.span("RunnableSequence");
    expect(root.attributes[A.TRACE_USER_ID]).toBe("user-9");
    expect(root.attributes[A.TRACE_SESSION_ID]).toBe("session-9");
    expect(root.attributes[`${A.OBSERVATION_METADATA}.svcUserId`]).toBeUndefined();
  });

  it("links the generation to the prompt attached to the prompt step's metadata", async () => {
    const fetched = { name: "qa-prompt", version: 3, isFallback: false, prompt: "Answer briefly." };
    const linked = prompt.withConfig({ metadata: { svcPrompt: fetched } });
    const chain = RunnableSequence.from([linked, new FakeListChatModel({ responses: ["ok"] })]);

    await chain.invoke({ question: "q" }, { callbacks: [new CallbackHandler()] });

    const generation = tracing.span("FakeListChatModel");
    expect(generation.attributes[A.OBSERVATION_PROMPT_NAME]).toBe("qa-prompt");
    expect(generation.attributes[A.OBSERVATION_PROMPT_VERSION]).toBe(3);
    expect(tracing.span("ChatPromptTemplate").attributes[`${A.OBSERVATION_METADATA}.svcPrompt`]).toBeUndefined();
  });

  it("does not link a generation to a fallback prompt", async () => {
    const linked = prompt.withConfig({ metadata: { svcPrompt: { name: "qa-prompt", version: 1, isFallback: true } } });
    const chain = RunnableSequence.from([linked, new FakeListChatModel({ responses: ["ok"] })]);

    await chain.invoke({ question: "q" }, { callbacks: [new CallbackHandler()] });

    expect(tracing.span("FakeListChatModel").attributes[A.OBSERVATION_PROMPT_NAME]).toBeUndefined();
  });

  it("writes the top-level run's input and output onto the outer observation with updateRoot", async () => {
    const chain = RunnableSequence.from([
      prompt,
      new FakeListChatModel({ responses: ["Paris"] }),
      new StringOutputParser(),
    ]);

    await startActiveObservation("request", () =>
      chain.invoke({ question: "Capital?" }, { callbacks: [new CallbackHandler({ updateRoot: true })] }),
    );

    const outer = tracing.span("request");
    expect(jsonAttribute(outer, A.OBSERVATION_INPUT)).toEqual({ question: "Capital?" });
    expect(outer.attributes[A.OBSERVATION_OUTPUT]).toBe("Paris");
  });

  it("leaves the outer observation's input and output alone without updateRoot", async () => {
    const chain = prompt.pipe(new FakeListChatModel({ responses: ["ok"] }));

    await startActiveObservation("request", () =>
      chain.invoke({ question: "q" }, { callbacks: [new CallbackHandler()] }),
    );

    expect(tracing.span("request").attributes[A.OBSERVATION_INPUT]).toBeUndefined();
  });

  it("keeps concurrent invocations through one handler in separate traces", async () => {
    const handler = new CallbackHandler();
    const chain = prompt.pipe(new FakeListChatModel({ responses: ["one", "two"] }));

    await Promise.all([
      chain.invoke({ question: "first" }, { callbacks: [handler] }),
      chain.invoke({ question: "second" }, { callbacks: [handler] }),
    ]);

    const roots = tracing.spans().filter((s) => s.name === "RunnableSequence");
    expect(roots).toHaveLength(2);
    for (const root of roots) {
      const trace = tracing.spans().filter((s) => s.spanContext().traceId === root.spanContext().traceId);
      expect(trace.map((s) => s.name).sort()).toEqual(["ChatPromptTemplate", "FakeListChatModel", "RunnableSequence"]);
      expect(trace.filter((s) => s !== root).every((s) => parentId(s) === root.spanContext().spanId)).toBe(true);
    }
  });

  it("exposes the trace id of the last top-level run", async () => {
    const handler = new CallbackHandler();

    await prompt.invoke({ question: "q" }, { callbacks: [handler] });

    expect(handler.last_trace_id).toBe(tracing.span("ChatPromptTemplate").spanContext().traceId);
  });

  it("records a run whose input cannot be read with a marker, never throws into the run, and logs one warning", async () => {
    const logs = captureLogs();
    const hostile = {
      get input(): never {
        throw new Error("unreadable input");
      },
    };
    const step = RunnableLambda.from((_: unknown) => "still works");
    const handler = new CallbackHandler();
    handler.raiseError = true; // LangChain would now pass anything the handler throws on into the run

    const result = await step.invoke(hostile, { callbacks: [handler] });

    expect(result).toBe("still works");
    expect(jsonAttribute(tracing.spans()[0]!, A.OBSERVATION_INPUT)).toEqual({ input: "<failed to serialize>" });
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "[Svc SDK] a value could not be read and was recorded as <failed to serialize>: unreadable input",
    ]);
  });

  it("logs an input that cannot be read on every run once, across handlers, and the count on a repeat ten seconds later", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const logs = captureLogs();
    const hostile = {
      get input(): never {
        throw new Error("unreadable input");
      },
    };
    const step = RunnableLambda.from((_: unknown) => "still works");

    for (let i = 0; i < 200; i++) await step.invoke(hostile, { callbacks: [new CallbackHandler()] });
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(1);
    vi.advanceTimersByTime(10_000);
    await step.invoke(hostile, { callbacks: [new CallbackHandler()] });

    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "[Svc SDK] a value could not be read and was recorded as <failed to serialize>: unreadable input",
      expect.stringMatching(
        /^\[Svc SDK\] a value could not be read and was recorded as <failed to serialize>: happened \d+ more time\(s\) since the last message$/,
      ),
    ]);
    expect(tracing.spans()).toHaveLength(201);
  });

  it("ends a run whose output cannot be read with a marker in its output, and logs one warning", async () => {
    const logs = captureLogs();
    const unreadable = {
      get output(): never {
        throw new Error("unreadable output");
      },
    };
    const step = RunnableLambda.from((_: string) => unreadable).withConfig({ runName: "unreadable-step" });

    const result = await step.invoke("x", { callbacks: [new CallbackHandler()] });

    expect(result).toBe(unreadable);
    expect(jsonAttribute(tracing.span("unreadable-step"), A.OBSERVATION_OUTPUT)).toEqual({
      output: "<failed to serialize>",
    });
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "[Svc SDK] a value could not be read and was recorded as <failed to serialize>: unreadable output",
    ]);
  });

  it("keeps the run's result and error unchanged when the spans it records into fail", async () => {
    const logs = captureLogs();
    setSvcTracerProvider(brokenProvider());
    onTestFinished(() => setSvcTracerProvider(null));
    const handler = new CallbackHandler();
    handler.raiseError = true;

    const answer = await RunnableSequence.from([
      prompt,
      new FakeListChatModel({ responses: ["fine"] }),
      new StringOutputParser(),
    ]).invoke({ question: "q" }, { callbacks: [handler] });
    const error = await prompt
      .pipe(new FakeListChatModel({ responses: ["never"] }))
      .invoke({ question: "q" }, { callbacks: [handler], thrownErrorString: "quota exceeded" } as never)
      .catch((e: unknown) => e);

    expect(answer).toBe("fine");
    expect((error as Error).message).toBe("quota exceeded");
    expect(logs.map((l) => l.message)).toContain(
      "[Svc SDK] CallbackHandler: handleLLMError failed and was skipped: span broken",
    );
  });
});

/** A tracer provider whose spans throw from every method but spanContext() and isRecording(). */
function brokenProvider(): TracerProvider {
  const spanContext = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 };
  const fail = (): never => {
    throw new Error("span broken");
  };
  const span = {
    spanContext: () => spanContext,
    isRecording: () => true,
    setAttribute: fail,
    setAttributes: fail,
    addEvent: fail,
    addLink: fail,
    addLinks: fail,
    setStatus: fail,
    updateName: fail,
    end: fail,
    recordException: fail,
  } satisfies Span;
  const tracer = { startSpan: () => span, startActiveSpan: fail } as unknown as Tracer;
  return { getTracer: () => tracer };
}

describe("CallbackHandler's TSDoc", () => {
  it("names the observation type each kind of run is recorded as, as the tests above find them", () => {
    const source = readFileSync(new URL("../../packages/langchain/src/callback-handler.ts", import.meta.url), "utf8");
    const doc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export class CallbackHandler/.exec(source)?.[1] ?? "";

    const text = doc.replace(/\s*\*\s*/g, " ");
    expect(text).toContain("LLM and chat model runs as generations");
    expect(text).toContain("tools as tools");
    expect(text).toContain("chains, graph nodes, retrievers and agent actions as spans");
  });
});
