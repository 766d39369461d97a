// The traced part of the quickstart: a retriever, a generation, a LangChain chain and an AI SDK call in one trace.
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import type { SvcClient, TextPromptClient } from "@svc/client";
import { CallbackHandler } from "@svc/langchain";
import { observe, propagateAttributes, startActiveObservation } from "@svc/tracing";
import { generateText } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const DOCUMENTS = [
  "Traces are trees of observations: spans, generations and events.",
  "Scores attach evaluations to traces, observations and experiments.",
];

/** The words of a text longer than three letters, lower-cased. */
const keywords = (text: string) => (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length > 3);

/** Looks up documents that share a keyword with the question (a stand-in for a vector store). */
export const retrieve = observe(
  async (question: string) => {
    const wanted = new Set(keywords(question));
    return DOCUMENTS.filter((d) => keywords(d).some((w) => wanted.has(w)));
  },
  { name: "retrieve-documents", asType: "retriever" },
);

/** A rough token count; a real model reports its own usage. */
const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Answers a question with the compiled prompt; a fixed reply stands in for a model call. */
export async function answer(prompt: TextPromptClient, question: string): Promise<string> {
  const context = await retrieve(question);
  const compiled = prompt.compile({ context: context.join(" "), question });
  return startActiveObservation(
    "answer-question",
    async (generation) => {
      generation.update({
        model: "fake-llm-1",
        modelParameters: { temperature: 0 },
        input: [{ role: "user", content: compiled }],
        prompt,
      });
      const text = context.length
        ? "It records traces of observations and the scores that evaluate them."
        : "I do not know.";
      generation.update({ output: text, usageDetails: { input: countWords(compiled), output: countWords(text) } });
      return text;
    },
    { asType: "generation" },
  );
}

/**
 * Suggests a follow-up question with the AI SDK. Its spans (registered with `registerTelemetry` in index.ts) nest under
 * the pipeline's trace; the AI SDK's mock model stands in for a provider.
 */
async function suggestFollowUp(answerText: string): Promise<string> {
  const model = new MockLanguageModelV4({
    modelId: "mock-model-1",
    doGenerate: async () => ({
      content: [{ type: "text", text: "How are scores attached to traces?" }],
      finishReason: { unified: "stop", raw: undefined },
      usage: {
        inputTokens: { total: 14, noCache: 14, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 7, text: 7, reasoning: undefined },
      },
      warnings: [],
    }),
  });
  const { text } = await generateText({ model, prompt: `Suggest one follow-up question to: ${answerText}` });
  return text;
}

/** Runs the pipeline in one trace and scores it; returns the trace id. */
export async function runPipeline(svc: SvcClient, prompt: TextPromptClient, question: string): Promise<string> {
  const summarize = ChatPromptTemplate.fromMessages([
    ["system", "Summarise the answer in three words."],
    ["human", "{answer}"],
  ])
    .pipe(new FakeListChatModel({ responses: ["Traces and scores."] }))
    .pipe(new StringOutputParser());

  return propagateAttributes({ userId: "user-42", sessionId: "quickstart-session", tags: ["quickstart"] }, () =>
    startActiveObservation("quickstart-pipeline", async (root) => {
      root.update({ input: { question } });
      const text = await answer(prompt, question);
      const summary = await summarize.invoke(
        { answer: text },
        { callbacks: [new CallbackHandler()], runName: "summarize-chain" },
      );
      const followUp = await suggestFollowUp(text);
      root.update({ output: { answer: text, summary, followUp } });
      svc.score.trace({ otelSpan: root.otelSpan }, { name: "helpfulness", value: 0.9, comment: "clear and short" });
      svc.score.trace({ otelSpan: root.otelSpan }, { name: "tone", value: "neutral", dataType: "CATEGORICAL" });
      return root.traceId;
    }),
  );
}
