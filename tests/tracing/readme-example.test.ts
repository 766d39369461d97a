import { SvcOtelSpanAttributes as A, observe, propagateAttributes, startActiveObservation } from "@svc/tracing";
import { expect, it } from "vitest";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

// The quick start of the package README, as written there.
const searchDocs = observe(
  async (_query: string) => {
    return [{ id: "doc-1", text: "Returns are accepted within 30 days." }];
  },
  { name: "search-docs", asType: "retriever" },
);

async function answer(question: string, userId: string) {
  return propagateAttributes({ userId, tags: ["support"] }, () =>
    startActiveObservation("answer-question", async (root) => {
      root.update({ input: { question } });

      const docs = await searchDocs(question);

      const generation = root.startObservation(
        "draft-answer",
        {
          model: "gpt-4o",
          modelParameters: { temperature: 0.2 },
          input: [
            { role: "system", content: `Answer from: ${docs.map((d) => d.text).join("\n")}` },
            { role: "user", content: question },
          ],
        },
        { asType: "generation" },
      );
      const text = "You can return it within 30 days.";
      generation.update({ output: text, usageDetails: { input: 42, output: 9, total: 51 } }).end();

      root.update({ output: text });
      return text;
    }),
  );
}

it("the README quick start produces a nested trace with a generation and trace attributes", async () => {
  await expect(answer("Can I return my order?", "user-7")).resolves.toBe("You can return it within 30 days.");

  const root = otel.span("answer-question");
  const retriever = otel.span("search-docs");
  const generation = otel.span("draft-answer");
  expect(parentId(root)).toBeUndefined();
  expect(parentId(retriever)).toBe(root.spanContext().spanId);
  expect(parentId(generation)).toBe(root.spanContext().spanId);
  expect(root.attributes).toMatchObject({
    [A.OBSERVATION_INPUT]: '{"question":"Can I return my order?"}',
    [A.OBSERVATION_OUTPUT]: "You can return it within 30 days.",
  });
  expect(generation.attributes).toMatchObject({
    [A.OBSERVATION_TYPE]: "generation",
    [A.OBSERVATION_MODEL]: "gpt-4o",
    [A.OBSERVATION_USAGE_DETAILS]: '{"input":42,"output":9,"total":51}',
  });
  expect(retriever.attributes[A.OBSERVATION_TYPE]).toBe("retriever");
  for (const span of [root, retriever, generation]) {
    expect(span.attributes[A.TRACE_USER_ID]).toBe("user-7");
    expect(span.attributes[A.TRACE_TAGS]).toEqual(["support"]);
  }
});
