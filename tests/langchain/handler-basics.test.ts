import { CallbackHandler } from "@svc/langchain";
import { describe, expect, it } from "vitest";

describe("CallbackHandler", () => {
  it("is a LangChain callback handler named SvcCallbackHandler with no trace yet", () => {
    const handler = new CallbackHandler({ userId: "u-1", tags: ["a"] });
    expect(handler.name).toBe("SvcCallbackHandler");
    expect(handler.last_trace_id).toBeNull();
    expect(handler.params).toMatchObject({ userId: "u-1", tags: ["a"] });
  });
});
