import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport } from "../../tools/codemod/src/report.ts";
import { rewrite } from "../support/codemod.ts";
import { removeDir } from "../support/packages.ts";

// Span attributes written by hand under the previous major's keys, and messages that name its environment variables.
const FILES: Record<string, string> = {
  "integration.ts": [
    "type Span = { setAttribute(key: string, value: unknown): void };",
    "export function tag(span: Span, key: string) {",
    '  span.setAttribute("langfuse.trace.name", "checkout");',
    "  span.setAttribute('langfuse.user.id', \"u1\");",
    '  span.setAttribute("langfuse.observation.prompt.name", "qa");',
    `  span.setAttribute(\`langfuse.trace.metadata.\${key}\`, 1);`,
    '  span.setAttribute("langfuse.observation.metadata.region", "eu");',
    '  span.setAttribute("langfuse.trace.input", "{}");',
    '  span.setAttribute("langfuse.trace.nickname", "x");',
    "}",
    'export const KEYS = { env: "langfuse.environment", release: "langfuse.release" } as const;',
    'export const site = "see langfuse.com for langfuse.trace.name";',
    "",
  ].join("\n"),
  "langchain.ts": [
    'import { CallbackHandler } from "@langfuse/langchain";',
    "export const handler = new CallbackHandler();",
    "export const config = (langfuseUserId: string, prompt: unknown) => ({",
    "  callbacks: [handler],",
    '  metadata: { langfuseUserId, langfuseSessionId: "s-1", "langfusePrompt": prompt },',
    "});",
    'export const label = "langfuseUserId is read from the metadata";',
    "",
  ].join("\n"),
  "messages.ts": [
    "export function check(env: Record<string, string | undefined>) {",
    '  if (!env.SVC_SECRET_KEY) throw new Error("Set LANGFUSE_SECRET_KEY before starting");',
    `  return \`using \${env.SVC_BASE_URL} (LANGFUSE_BASE_URL)\`;`,
    "}",
    'export const own = "LANGFUSE_PROJECT_COLOR is ours";',
    "",
  ].join("\n"),
};

describe("span attribute keys and environment variable names in strings", () => {
  let run: ReturnType<typeof rewrite> | undefined;
  beforeAll(() => {
    run = rewrite(FILES, { v5Types: true, keep: true });
  }, 60_000);
  afterAll(() => {
    if (run) removeDir(join(run.dir, ".."));
  });
  const text = (path: string) => run?.text(path) ?? "";
  const file = (path: string) => run?.result.files.find((f) => f.path === path);

  it("rewrites each v5 key to the key v6 and the server read", () => {
    const after = text("integration.ts");
    expect(after).toContain('span.setAttribute("svc.trace.name", "checkout");');
    expect(after).toContain("span.setAttribute('user.id', \"u1\");");
    expect(after).toContain('span.setAttribute("svc.observation.prompt.name", "qa");');
    expect(after).toContain(`span.setAttribute(\`svc.trace.metadata.\${key}\`, 1);`);
    expect(after).toContain('span.setAttribute("svc.observation.metadata.region", "eu");');
    expect(after).toContain('export const KEYS = { env: "svc.environment", release: "svc.release" } as const;');
    expect(after).toContain('export const site = "see langfuse.com for langfuse.trace.name";');
    expect(file("integration.ts")?.counts.attributes).toBe(8);
  });

  it("marks the trace input key (v6 does not write it) and a key in the families that nothing reads", () => {
    expect(text("integration.ts")).toContain('span.setAttribute("svc.trace.input", "{}");');
    expect(file("integration.ts")?.findings.map((f) => `${f.kind} ${f.line}: ${f.message}`)).toEqual([
      expect.stringMatching(
        /^review \d+: v6 does not write svc\.trace\.input: a trace's input is its root observation's/,
      ),
      expect.stringMatching(/^unchanged \d+: "langfuse\.trace\.nickname" is no span attribute key the server reads/),
    ]);
  });

  it("renames the LangChain handler's run metadata keys in files that use the v5 packages", () => {
    const after = text("langchain.ts");
    expect(after).toContain('metadata: { svcUserId: langfuseUserId, svcSessionId: "s-1", "svcPrompt": prompt },');
    expect(after).toContain('export const label = "langfuseUserId is read from the metadata";');
    expect(file("langchain.ts")?.counts.attributes).toBe(3);
  });

  it("lists messages that name the v5 variables in the report, and leaves them", () => {
    expect(text("messages.ts")).toBe(FILES["messages.ts"]);
    expect(file("messages.ts")?.envMentions).toEqual([
      { line: 2, name: "LANGFUSE_SECRET_KEY" },
      { line: 3, name: "LANGFUSE_BASE_URL" },
    ]);
    const report = run ? formatReport(run.result, { dryRun: false }) : "";
    expect(report).toContain(
      "Text that names v5 environment variables, left as it is (update messages and docs): (2)\n  messages.ts:2 LANGFUSE_SECRET_KEY\n  messages.ts:3 LANGFUSE_BASE_URL\n",
    );
  });
});
