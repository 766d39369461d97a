import { startActiveObservation } from "@svc/tracing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";
import { readTrace } from "./read-trace.ts";

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

it("reads a trace back with the README's snippet: input, output, model and usage of each observation", async () => {
  const traceId = await startActiveObservation("answer", async (span) => {
    span.update({ input: { question: "Capital of France?" } });
    span
      .startObservation(
        "llm",
        { model: "gpt-4o", input: [{ role: "user", content: "Capital?" }] },
        { asType: "generation" },
      )
      .update({ output: "Paris", usageDetails: { input: 12, output: 1 } })
      .end();
    span.update({ output: { answer: "Paris" } });
    return span.traceId;
  });
  await e2e.flush();

  const observations = await readTrace(e2e.svc, traceId);

  const root = observations.find((o) => o.name === "answer");
  expect(root).toMatchObject({ type: "SPAN", input: { question: "Capital of France?" }, output: { answer: "Paris" } });
  expect(observations.find((o) => o.name === "llm")).toMatchObject({
    type: "GENERATION",
    model: "gpt-4o",
    input: [{ role: "user", content: "Capital?" }],
    output: "Paris",
    usage: expect.objectContaining({ input: 12, output: 1 }),
  });
});
