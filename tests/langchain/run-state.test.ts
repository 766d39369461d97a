import { describe, expect, it } from "vitest";
import { PromptLinks, parsePromptLink } from "../../packages/langchain/src/internal/prompt-links.ts";
import {
  errorMessage,
  observationMetadata,
  runLevel,
  runName,
} from "../../packages/langchain/src/internal/run-info.ts";

describe("prompt links", () => {
  it("reads name, version and fallback flag from a fetched prompt", () => {
    expect(parsePromptLink({ name: "qa", version: 3, isFallback: false, prompt: "..." })).toEqual({
      name: "qa",
      version: 3,
      isFallback: false,
    });
    expect(parsePromptLink({ name: "qa", version: "4" })).toEqual({ name: "qa", version: 4, isFallback: false });
  });

  it("gives a reason for a value that is not a prompt", () => {
    expect(parsePromptLink("qa")).toBe("not an object");
    expect(parsePromptLink({ name: "", version: 1 })).toBe("name must be a non-empty string");
    expect(parsePromptLink({ name: "qa", version: 1.5 })).toBe('version must be an integer (name="qa")');
  });

  it("hands a registered link to the first generation under that parent only", () => {
    const links = new PromptLinks();
    links.register("parent-1", { name: "qa", version: 1, isFallback: false });
    expect(links.take("other")).toBeUndefined();
    expect(links.take("parent-1")).toEqual({ name: "qa", version: 1, isFallback: false });
    expect(links.take("parent-1")).toBeUndefined();
  });

  it("drops a link when its parent run ends before a generation took it", () => {
    const links = new PromptLinks();
    links.register("parent-1", { name: "qa", version: 1, isFallback: false });
    links.release("parent-1");
    expect(links.take("parent-1")).toBeUndefined();
  });
});

describe("run naming, metadata and errors", () => {
  it("names a run by its name, then its serialized id, then the fallback", () => {
    expect(runName("my-chain", undefined, "Fallback")).toBe("my-chain");
    expect(runName(undefined, { lc: 1, type: "not_implemented", id: ["langchain", "RunnableSequence"] }, "F")).toBe(
      "RunnableSequence",
    );
    expect(runName("", undefined, "Fallback")).toBe("Fallback");
  });

  it("puts tags into metadata and leaves out the handler's own keys", () => {
    const metadata = { svcPrompt: {}, svcUserId: "u", svcSessionId: "s", langgraph_node: "a" };
    expect(observationMetadata(["t"], metadata)).toEqual({ tags: ["t"], langgraph_node: "a" });
    expect(observationMetadata([], {})).toBeUndefined();
  });

  it("marks hidden runs as DEBUG", () => {
    expect(runLevel(["langsmith:hidden"])).toBe("DEBUG");
    expect(runLevel(["x"])).toBeUndefined();
  });

  it("adds the provider's error details to the status message", () => {
    expect(errorMessage(new Error("boom"))).toBe("Error: boom");
    const refused = Object.assign(new Error("refused"), { error: { code: "content_filter" } });
    expect(errorMessage(refused)).toBe('Error: refused\n\nError details:\n{\n  "code": "content_filter"\n}');
  });
});
