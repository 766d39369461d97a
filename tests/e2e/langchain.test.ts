import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { CallbackHandler } from "@svc/langchain";
import { startActiveObservation } from "@svc/tracing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byName, type E2eSetup, startE2e } from "../support/e2e.ts";

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

describe("CallbackHandler against the dev server", () => {
  it("records a chain with a fake chat model as nested observations under the active span", async () => {
    const chain = ChatPromptTemplate.fromMessages([["human", "Say hi to {name}"]])
      .pipe(new FakeListChatModel({ responses: ["Hi Ada!"] }))
      .pipe(new StringOutputParser());
    const handler = new CallbackHandler({ sessionId: "lc-session", tags: ["langchain"] });

    const { traceId, rootId, output } = await startActiveObservation("app", async (span) => ({
      traceId: span.traceId,
      rootId: span.id,
      output: await chain.invoke({ name: "Ada" }, { callbacks: [handler], runName: "greet-chain" }),
    }));
    await e2e.flush();

    const observations = await e2e.observations(traceId);
    const chainObservation = byName(observations, "greet-chain");
    const generation = observations.find((o) => o.type === "GENERATION");
    expect(output).toBe("Hi Ada!");
    expect(chainObservation).toMatchObject({ parentObservationId: rootId, output: "Hi Ada!", type: "SPAN" });
    expect(observations.map((o) => o.type).sort()).toEqual(["GENERATION", "SPAN", "SPAN", "SPAN", "SPAN"]);
    expect(generation).toMatchObject({ parentObservationId: chainObservation.id });
    expect(String(generation?.input)).toContain("Say hi to Ada");
    expect(String(generation?.output)).toContain("Hi Ada!");
    expect(chainObservation.sessionId).toBe("lc-session");
    expect(chainObservation.tags).toContain("langchain");
  });
});
