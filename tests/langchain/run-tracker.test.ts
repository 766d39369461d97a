import type { Serialized } from "@langchain/core/load/serializable";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const tracing = useInMemoryTracing();

/** What LangChain passes for a runnable without its own serialization. */
const serialized = (name: string): Serialized => ({ lc: 1, type: "not_implemented", id: ["test", name] });

describe("the runs of a CallbackHandler", () => {
  it("ends the oldest open run with a warning once more than 10,000 runs are open", () => {
    const handler = new CallbackHandler();
    const logs = captureLogs();
    const chain = serialized("Chain");

    handler.handleChainStart(chain, {}, "run-0", undefined, undefined, undefined, undefined, "first");
    for (let i = 1; i <= 10_000; i++)
      handler.handleChainStart(chain, {}, `run-${i}`, undefined, undefined, undefined, undefined, `run ${i}`);

    expect(tracing.spans().map((s) => s.name)).toEqual(["first"]);
    expect(logs.map((l) => [l.level, l.message])).toEqual([
      ["warn", "[Svc SDK] CallbackHandler: run run-0 still open after 10000 newer runs; ended without output"],
    ]);
  });

  it("forgets a run once it ended, so a late second end only logs a warning", () => {
    const handler = new CallbackHandler();
    const logs = captureLogs();
    handler.handleToolStart(serialized("Tool"), "q", "run-1", undefined, undefined, undefined, "lookup");

    handler.handleToolEnd("a", "run-1");
    handler.handleToolEnd("b", "run-1");

    expect(tracing.span("lookup").attributes[A.OBSERVATION_OUTPUT]).toBe("a");
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] CallbackHandler: handleToolEnd for unknown run run-1; nothing recorded",
    ]);
  });

  it("starts a run whose parent already ended in the active context instead", () => {
    const handler = new CallbackHandler();
    const chain = serialized("Chain");
    handler.handleChainStart(chain, {}, "parent", undefined, undefined, undefined, undefined, "parent");
    handler.handleChainEnd({}, "parent");

    handler.handleChainStart(chain, {}, "child", "parent", undefined, undefined, undefined, "late-child");
    handler.handleChainEnd({}, "child");

    expect(parentId(tracing.span("late-child"))).toBeUndefined();
  });
});
