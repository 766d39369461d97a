import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rewrite } from "../support/codemod.ts";
import { removeDir } from "../support/packages.ts";

// Names and methods v6 does not have, met in code written for v4 or reached through the user's own types.
const FILES: Record<string, string> = {
  "v4.ts": [
    'import { startActiveObservation, updateActiveTrace } from "@langfuse/tracing";',
    'export const run = () => startActiveObservation("job", () => updateActiveTrace({ userId: "u1" }));',
    "",
  ].join("\n"),
  "unknown.ts":
    'import { LangfuseNothing } from "@langfuse/otel";\nexport const x: LangfuseNothing | undefined = undefined;\n',
  "own-type.ts": [
    'import { startObservation } from "@langfuse/tracing";',
    "interface Root {",
    "  setTraceIO(io: { input?: unknown }): void;",
    "  updateTrace(attributes: { name?: string }): void;",
    "}",
    "export function go(input: unknown) {",
    '  const root = startObservation("r") as unknown as Root;',
    '  (startObservation("r") as unknown as Root).setTraceIO({ input });',
    '  root.updateTrace({ name: "n" });',
    "}",
    "",
  ].join("\n"),
  "implemented.ts": [
    "class Recorder {",
    "  setTraceIO(io: unknown) {",
    "    return io;",
    "  }",
    "  updateTrace(name: string) {",
    "    return name;",
    "  }",
    "}",
    'export const r = new Recorder().setTraceIO(1) && new Recorder().updateTrace("x");',
    "",
  ].join("\n"),
  "aliases.ts": [
    'import { LangfuseClient } from "@langfuse/client";',
    "interface PromptSource {",
    "  getPrompt(name: string): Promise<unknown>;",
    "}",
    'export const p = (new LangfuseClient() as unknown as PromptSource).getPrompt("qa");',
    "",
  ].join("\n"),
  "openai.ts": 'import { observeOpenAI } from "@langfuse/openai";\nexport const wrap = observeOpenAI;\n',
};

describe("names and methods v6 does not have", () => {
  let run: ReturnType<typeof rewrite> | undefined;
  beforeAll(() => {
    run = rewrite(FILES, { v5Types: true, keep: true });
  }, 60_000);
  afterAll(() => {
    if (run) removeDir(join(run.dir, ".."));
  });
  const text = (path: string) => run?.text(path) ?? "";
  const findings = (path: string) =>
    run?.result.files.find((file) => file.path === path)?.findings.map((f) => `${f.line} ${f.rule}: ${f.message}`) ??
    [];

  it("a v4 import (updateActiveTrace) is marked with what replaces it, at the import and the call", () => {
    expect(text("v4.ts")).toContain('import { startActiveObservation, updateActiveTrace } from "@svc/tracing";');
    const marks = findings("v4.ts");
    expect(marks).toHaveLength(2);
    for (const mark of marks) {
      expect(mark).toContain("updateActiveTrace() (v4) was removed: wrap the work in propagateAttributes(");
      expect(mark).toContain("setActiveTraceAsPublic()");
    }
    expect(text("v4.ts")).toContain("(MIGRATION-v6.md#coming-from-v4)");
  });

  it("a name the v6 package does not export is marked, not renamed into a missing export", () => {
    expect(findings("unknown.ts")).toEqual([
      expect.stringContaining("exports: @svc/otel exports no SvcNothing: find what replaced LangfuseNothing"),
    ]);
    expect(text("unknown.ts")).toContain('import { LangfuseNothing } from "@svc/otel";');
  });

  it("setTraceIO and v4 updateTrace through the user's own interface are marked", () => {
    const marks = findings("own-type.ts");
    expect(marks).toEqual([
      expect.stringMatching(/^\d+ trace-io: setTraceIO\(\) was removed: the trace's input and output are those/),
      expect.stringMatching(/^\d+ removed-methods: updateTrace\(\) \(v4\) was removed: /),
    ]);
    expect(text("own-type.ts")).toContain('(startObservation("r") as unknown as Root).setTraceIO({ input });');
  });

  it("methods the user's code implements are not touched", () => {
    expect(run?.result.files.find((file) => file.path === "implemented.ts")).toBeUndefined();
  });

  it("a removed client shortcut through the user's own type is marked", () => {
    expect(findings("aliases.ts")).toEqual([
      expect.stringMatching(
        /^\d+ client-aliases: if this is the SDK's client: getPrompt\(\) was removed, use prompt\.get\(\)/,
      ),
    ]);
  });

  it("observeOpenAI of @langfuse/openai points to the model-calls guide", () => {
    expect(text("openai.ts")).toContain("(docs/model-calls.md#coming-from-observeopenai)");
    expect(findings("openai.ts")).toEqual([
      expect.stringContaining("packages: @langfuse/openai (observeOpenAI) has no v6 package"),
    ]);
  });
});
