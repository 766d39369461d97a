// The app of the README's first trace, as written there (tests/docs checks that it is).
import { observe, propagateAttributes, startActiveObservation } from "@svc/tracing";

// Any function can become an observation; its arguments and result are recorded.
const searchDocs = observe(
  async (_query: string) => {
    return [{ id: "doc-1", text: "Returns are accepted within 30 days." }];
  },
  { name: "search-docs", asType: "retriever" },
);

export async function answer(question: string, userId: string) {
  // Everything started inside carries the user id and tags.
  return propagateAttributes({ userId, tags: ["support"] }, () =>
    startActiveObservation("answer-question", async (root) => {
      root.update({ input: { question } }); // the root observation's input is the trace input

      const docs = await searchDocs(question); // a child of "answer-question"

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
      const text = "You can return it within 30 days."; // call your model here
      generation.update({ output: text, usageDetails: { input: 42, output: 9, total: 51 } }).end();

      root.update({ output: text }); // ... and its output is the trace output
      return text;
    }),
  );
}
