// The README's test of answer(), as written there (tests/docs checks that it is).
import { BasicTracerProvider as TracerProvider } from "@opentelemetry/sdk-trace-base";
import { installSvcTestKit } from "@svc/otel/testing";
import { afterAll, afterEach, expect, it } from "vitest";
import { answer } from "./answer.js";

const kit = installSvcTestKit({ provider: TracerProvider, environment: "test" });
afterEach(() => kit.reset());
afterAll(() => kit.uninstall());

it("answers from the docs with one generation, in one trace of the user", async () => {
  await answer("Can I return my order?", "user-7");

  const { traces, one, byType } = await kit.collect();
  expect(traces).toHaveLength(1);
  expect(traces[0]).toMatchObject({
    userId: "user-7",
    tags: ["support"],
    input: { question: "Can I return my order?" },
    output: "You can return it within 30 days.",
  });
  const root = one("answer-question");
  expect(root.children.map((child) => [child.name, child.type])).toEqual([
    ["search-docs", "retriever"],
    ["draft-answer", "generation"],
  ]);
  expect(byType("generation")).toEqual([
    expect.objectContaining({
      parentId: root.id,
      model: "gpt-4o",
      usage: { input: 42, output: 9, total: 51 },
      environment: "test",
    }),
  ]);
  expect(one("search-docs").output).toEqual([{ id: "doc-1", text: "Returns are accepted within 30 days." }]);
});
