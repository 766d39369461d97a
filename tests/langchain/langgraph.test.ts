import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { jsonAttribute, singleTraceId, typeOf } from "../support/langchain.ts";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const tracing = useInMemoryTracing();

const State = Annotation.Root({
  question: Annotation<string>(),
  answer: Annotation<string>(),
});

function buildGraph(model: FakeListChatModel) {
  return new StateGraph(State)
    .addNode("respond", async (state) => ({ answer: String((await model.invoke(state.question)).content) }))
    .addNode("shout", (state) => ({ answer: state.answer.toUpperCase() }))
    .addEdge(START, "respond")
    .addEdge("respond", "shout")
    .addEdge("shout", END)
    .compile();
}

describe("CallbackHandler with a LangGraph graph", () => {
  it("records the graph as the root chain with one chain per node and the model call inside its node", async () => {
    const graph = buildGraph(new FakeListChatModel({ responses: ["paris"] }));
    const handler = new CallbackHandler({ userId: "user-1", sessionId: "session-1" });

    const result = await graph.invoke({ question: "Capital of France?" }, { callbacks: [handler] });

    expect(result.answer).toBe("PARIS");
    const spans = tracing.spans();
    expect(singleTraceId(spans)).toBe(handler.last_trace_id);
    const root = tracing.span("LangGraph");
    expect(parentId(root)).toBeUndefined();
    expect(typeOf(root)).toBe("span");
    expect(jsonAttribute(root, A.OBSERVATION_INPUT)).toEqual({ question: "Capital of France?" });
    expect(jsonAttribute(root, A.OBSERVATION_OUTPUT)).toEqual({ question: "Capital of France?", answer: "PARIS" });

    const answerNode = tracing.span("respond");
    const shoutNode = tracing.span("shout");
    for (const node of [answerNode, shoutNode]) {
      expect(typeOf(node)).toBe("span");
      expect(parentId(node)).toBe(root.spanContext().spanId);
    }
    expect(answerNode.attributes[`${A.OBSERVATION_METADATA}.langgraph_node`]).toBe("respond");
    expect(jsonAttribute(shoutNode, A.OBSERVATION_OUTPUT)).toEqual({ answer: "PARIS" });

    const generation = tracing.span("FakeListChatModel");
    expect(typeOf(generation)).toBe("generation");
    expect(parentId(generation)).toBe(answerNode.spanContext().spanId);
    for (const span of spans) {
      expect(span.attributes[A.TRACE_USER_ID]).toBe("user-1");
      expect(span.attributes[A.TRACE_SESSION_ID]).toBe("session-1");
    }
  });

  it("records the graph's hidden start step at level DEBUG", async () => {
    const graph = buildGraph(new FakeListChatModel({ responses: ["x"] }));

    await graph.invoke({ question: "q" }, { callbacks: [new CallbackHandler()] });

    expect(tracing.span("__start__").attributes[A.OBSERVATION_LEVEL]).toBe("DEBUG");
    expect(tracing.span("respond").attributes[A.OBSERVATION_LEVEL]).toBeUndefined();
  });
});
