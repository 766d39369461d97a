import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { RunTracker } from "../../packages/langchain/src/internal/run-tracker.ts";
import { captureLogs } from "../support/logs.ts";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const tracing = useInMemoryTracing();

function tracker(maxOpenRuns: number) {
  return new RunTracker({ updateRoot: false, traceAttributes: () => ({}), maxOpenRuns });
}

describe("RunTracker", () => {
  it("ends the oldest open run with a warning once more runs are open than its limit", () => {
    const logs = captureLogs();
    const runs = tracker(2);

    runs.start("chain", "run-1", undefined, "first", undefined, undefined, {});
    runs.start("chain", "run-2", undefined, "second", undefined, undefined, {});
    runs.start("chain", "run-3", undefined, "third", undefined, undefined, {});

    expect(tracing.spans().map((s) => s.name)).toEqual(["first"]);
    expect(logs.map((l) => [l.level, l.message])).toEqual([
      ["warn", "[Svc SDK] CallbackHandler: run run-1 still open after 2 newer runs; ended without output"],
    ]);
  });

  it("forgets a run once it ended, so a late second end only logs a warning", () => {
    const logs = captureLogs();
    const runs = tracker(10);
    runs.start("tool", "run-1", undefined, "lookup", undefined, undefined, { input: "q" });

    runs.end("handleToolEnd", "run-1", () => ({ output: "a" }));
    runs.end("handleToolEnd", "run-1", () => ({ output: "b" }));

    expect(tracing.span("lookup").attributes[A.OBSERVATION_OUTPUT]).toBe("a");
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] CallbackHandler: handleToolEnd for unknown run run-1; nothing recorded",
    ]);
  });

  it("starts a run whose parent already ended in the active context instead", () => {
    const runs = tracker(10);
    runs.start("chain", "parent", undefined, "parent", undefined, undefined, {});
    runs.end("handleChainEnd", "parent", () => ({}));

    runs.start("chain", "child", "parent", "late-child", undefined, undefined, {});
    runs.end("handleChainEnd", "child", () => ({}));

    expect(parentId(tracing.span("late-child"))).toBeUndefined();
  });
});
