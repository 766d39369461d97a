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

describe("CallbackHandler.copy", () => {
  it("returns a handler with the same options", () => {
    const handler = new CallbackHandler({ sessionId: "s-1", updateRoot: true });
    const copy = handler.copy();
    expect(copy).not.toBe(handler);
    expect(copy.params).toEqual(handler.params);
    expect(copy.awaitHandlers).toBe(true);
  });
});
