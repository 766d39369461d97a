import type { Serialized } from "@langchain/core/load/serializable";
import { CallbackHandler } from "@svc/langchain";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { useInMemoryTracing } from "../support/tracing.ts";

// What a CallbackHandler records of a run's prompt link, name, metadata, level and error.

const tracing = useInMemoryTracing();
const serialized = (name: string): Serialized => ({ lc: 1, type: "not_implemented", id: ["langchain", name] });
let runs = 0;

/** Starts a chain run (under `parent`, with `metadata` and `tags`) and returns its id; `name` as LangChain gives it. */
function startChain(
  handler: CallbackHandler,
  { parent, metadata, tags, name, chain = "Chain" }: ChainRun = {},
): string {
  const id = `run-${++runs}`;
  handler.handleChainStart(serialized(chain), {}, id, parent, tags, metadata, undefined, name);
  return id;
}

interface ChainRun {
  parent?: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  name?: string;
  chain?: string;
}

/** Runs a chat model under `parent` and returns the prompt name and version its generation records. */
function promptOfGeneration(handler: CallbackHandler, parent: string): unknown[] {
  const id = `chat-${++runs}`;
  handler.handleChatModelStart(serialized("Chat"), [], id, parent, undefined, undefined, undefined, id);
  handler.handleLLMEnd({ generations: [] }, id);
  const { attributes } = tracing.span(id);
  return [attributes[A.OBSERVATION_PROMPT_NAME], attributes[A.OBSERVATION_PROMPT_VERSION]];
}

/** The metadata attributes of the span `name`, by key. */
function metadataOf(name: string): Record<string, unknown> {
  const prefix = `${A.OBSERVATION_METADATA}.`;
  return Object.fromEntries(
    Object.entries(tracing.span(name).attributes)
      .filter(([key]) => key.startsWith(prefix) || key === A.OBSERVATION_METADATA)
      .map(([key, value]) => [key.slice(prefix.length), value]),
  );
}

describe("prompt links", () => {
  it("reads name and version from a fetched prompt in a run's metadata, for the generations under its parent", () => {
    const handler = new CallbackHandler();
    const parent = startChain(handler);
    const other = startChain(handler);
    startChain(handler, {
      parent,
      metadata: { svcPrompt: { name: "qa", version: 3, isFallback: false, prompt: "..." } },
    });
    const second = startChain(handler);
    startChain(handler, { parent: second, metadata: { svcPrompt: { name: "qa", version: "4" } } });

    expect(promptOfGeneration(handler, other)).toEqual([undefined, undefined]);
    expect(promptOfGeneration(handler, parent)).toEqual(["qa", 3]);
    expect(promptOfGeneration(handler, second)).toEqual(["qa", 4]);
  });

  it("gives a reason for a value that is not a prompt", () => {
    const handler = new CallbackHandler();
    const logs = captureLogs();
    const parent = startChain(handler);
    for (const svcPrompt of ["qa", { name: "", version: 1 }, { name: "qa", version: 1.5 }])
      startChain(handler, { parent, metadata: { svcPrompt } });

    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "[Svc SDK] CallbackHandler: metadata svcPrompt ignored: not an object",
      "[Svc SDK] CallbackHandler: metadata svcPrompt ignored: name must be a non-empty string",
      '[Svc SDK] CallbackHandler: metadata svcPrompt ignored: version must be an integer (name="qa")',
    ]);
  });

  it("hands a registered link to the first generation under that parent only", () => {
    const handler = new CallbackHandler();
    const parent = startChain(handler);
    startChain(handler, { parent, metadata: { svcPrompt: { name: "qa", version: 1 } } });

    expect(promptOfGeneration(handler, parent)).toEqual(["qa", 1]);
    expect(promptOfGeneration(handler, parent)).toEqual([undefined, undefined]);
  });

  it("drops a link when its parent run ends before a generation took it", () => {
    const handler = new CallbackHandler();
    const parent = startChain(handler);
    startChain(handler, { parent, metadata: { svcPrompt: { name: "qa", version: 1 } } });
    handler.handleChainEnd({}, parent);

    expect(promptOfGeneration(handler, parent)).toEqual([undefined, undefined]);
  });
});

describe("run naming, metadata and errors", () => {
  it("names a run by its name, then its serialized id, then the fallback", () => {
    const handler = new CallbackHandler();
    const named = startChain(handler, { name: "my-chain" });
    const bySerialized = startChain(handler, { chain: "RunnableSequence" });
    const unnamed = `run-${++runs}`;
    handler.handleChainStart({ lc: 1, type: "not_implemented", id: [] }, {}, unnamed, undefined, [], {}, undefined, "");
    for (const id of [named, bySerialized, unnamed]) handler.handleChainEnd({}, id);

    expect(tracing.spans().map((s) => s.name)).toEqual(["my-chain", "RunnableSequence", "Langchain Run"]);
  });

  it("puts tags into metadata and leaves out the handler's own keys", () => {
    const handler = new CallbackHandler();
    const metadata = { svcPrompt: {}, svcUserId: "u", svcSessionId: "s", langgraph_node: "a" };
    const tagged = startChain(handler, { name: "tagged", tags: ["t"], metadata });
    const plain = startChain(handler, { name: "plain", tags: [], metadata: {} });
    for (const id of [tagged, plain]) handler.handleChainEnd({}, id);

    expect(metadataOf("tagged")).toEqual({ tags: '["t"]', langgraph_node: "a" });
    expect(metadataOf("plain")).toEqual({});
  });

  it("marks hidden runs as DEBUG", () => {
    const handler = new CallbackHandler();
    const hidden = startChain(handler, { name: "hidden", tags: ["langsmith:hidden"] });
    const shown = startChain(handler, { name: "shown", tags: ["x"] });
    for (const id of [hidden, shown]) handler.handleChainEnd({}, id);

    expect(tracing.span("hidden").attributes[A.OBSERVATION_LEVEL]).toBe("DEBUG");
    expect(tracing.span("shown").attributes[A.OBSERVATION_LEVEL]).toBeUndefined();
  });

  it("adds the provider's error details to the status message", () => {
    const handler = new CallbackHandler();
    const boom = startChain(handler, { name: "boom" });
    const refused = startChain(handler, { name: "refused" });
    handler.handleChainError(new Error("boom"), boom);
    handler.handleChainError(Object.assign(new Error("refused"), { error: { code: "content_filter" } }), refused);

    expect(tracing.span("boom").attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("Error: boom");
    expect(tracing.span("refused").attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe(
      'Error: refused\n\nError details:\n{\n  "code": "content_filter"\n}',
    );
  });
});
