import { CallbackHandler } from "@svc/langchain";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";

describe("CallbackHandler", () => {
  it("is a LangChain callback handler named SvcCallbackHandler with no trace yet", () => {
    const handler = new CallbackHandler({ userId: "u-1", tags: ["a"] });
    expect(handler.name).toBe("SvcCallbackHandler");
    expect(handler.last_trace_id).toBeNull();
    expect(handler.params).toMatchObject({ userId: "u-1", tags: ["a"] });
  });

  it("never throws from its constructor: options that are none, tags that are no list, a field that cannot be read", () => {
    captureLogs();
    const unreadable = Object.defineProperty({ sessionId: "s-1" }, "userId", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });

    expect(new CallbackHandler(null as never).params).toEqual({ tags: [] });
    expect(new CallbackHandler({ tags: 5 as never }).params).toEqual({ tags: [] });
    expect(new CallbackHandler(unreadable as never).params).toEqual({ sessionId: "s-1", tags: [] });
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

describe("CallbackHandler options", () => {
  it("names at most ten unknown options and counts the others, so options with millions of keys cost nothing", () => {
    const logs = captureLogs();

    new CallbackHandler(new Uint8Array(2_000_000) as never);

    const warnings = logs.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings).toHaveLength(11);
    expect(warnings.at(-1)).toBe("[Svc SDK] CallbackHandler: 1999990 more unknown options are ignored");
  });

  it("warns about an unknown option name with the closest known one, and logs its options at debug level", () => {
    const logs = captureLogs();

    new CallbackHandler({ userID: "u-1", tags: ["a"] } as never);

    expect(logs).toEqual([
      {
        level: "warn",
        message: '[Svc SDK] CallbackHandler: unknown option "userID" is ignored; did you mean "userId"?',
      },
      {
        level: "debug",
        message:
          '[Svc SDK] CallbackHandler: created with userId=none, sessionId=none, tags=["a"], version=none, traceMetadata=none, updateRoot=none',
      },
    ]);
  });
});
