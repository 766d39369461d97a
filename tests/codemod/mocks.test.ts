import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rewrite } from "../support/codemod.ts";
import { removeDir } from "../support/packages.ts";

// The smallest tests that mock the v5 packages: the module name and the export names of the factory's object change
// together, because the code under test imports the v6 names after the rewrite.
const VITEST =
  "declare const vi: { mock(...args: unknown[]): void; doMock(...args: unknown[]): void; fn(): unknown; importActual<T>(name: string): Promise<T> };\n";
const JEST =
  "declare const jest: { mock(...args: unknown[]): void; fn(): unknown; requireActual<T>(name: string): T };\n";

const FILES: Record<string, string> = {
  "vitest.test.ts": `${VITEST}vi.mock("@langfuse/client", () => ({ LangfuseClient: vi.fn() }));\n`,
  "jest.test.ts": `${JEST}jest.mock("@langfuse/otel", () => ({\n  LangfuseSpanProcessor: jest.fn(),\n  isLangfuseSpan: () => true,\n}));\n`,
  "original.test.ts": [
    VITEST,
    'vi.mock("@langfuse/tracing", async (importOriginal) => {',
    '  const actual = await (importOriginal as () => Promise<typeof import("@langfuse/tracing")>)();',
    "  return { ...actual, getLangfuseTracer: vi.fn(), updateActiveTrace: vi.fn() };",
    "});",
    "",
  ].join("\n"),
  "do-mock.test.ts": `${VITEST}vi.doMock("@langfuse/client", function () {\n  const LangfuseClient = vi.fn(function () {\n    return { params: 1 };\n  });\n  return { LangfuseClient };\n});\n`,
  "actual.test.ts": [
    JEST,
    'jest.mock("@langfuse/client", () => ({',
    '  ...jest.requireActual("@langfuse/client"),',
    '  "LangfuseMedia": jest.fn(),',
    "}));",
    'const { LangfuseClient } = jest.requireActual<typeof import("@langfuse/client")>("@langfuse/client");',
    "export const made = new LangfuseClient();",
    'export const actual = vi.importActual("@langfuse/otel");',
    "",
  ].join("\n"),
  "opaque.test.ts": `${VITEST}const factory = () => ({});\nvi.mock("@langfuse/client", factory);\n`,
};

describe("tests that mock the v5 packages", () => {
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

  it("vi.mock: the module and the export names of the factory's object", () => {
    expect(text("vitest.test.ts")).toBe(`${VITEST}vi.mock("@svc/client", () => ({ SvcClient: vi.fn() }));\n`);
  });

  it("jest.mock: every member of the returned object, methods included", () => {
    expect(text("jest.test.ts")).toBe(
      `${JEST}jest.mock("@svc/otel", () => ({\n  SvcSpanProcessor: jest.fn(),\n  isSvcSpan: () => true,\n}));\n`,
    );
  });

  it("vi.mock with importOriginal: the spread stays, renamed members change, a name v6 lacks is marked", () => {
    const after = text("original.test.ts");
    expect(after).toContain('Promise<typeof import("@svc/tracing")>');
    expect(after).toContain("return { ...actual, getSvcTracer: vi.fn(), updateActiveTrace: vi.fn() };");
    expect(findings("original.test.ts")).toEqual([
      expect.stringMatching(
        /^\d+ mocks: mocks updateActiveTrace, which v6 does not export: updateActiveTrace\(\) \(v4\) was removed: wrap the work in propagateAttributes/,
      ),
    ]);
  });

  it("vi.doMock with a function body: shorthand members keep their local name", () => {
    expect(text("do-mock.test.ts")).toContain('vi.doMock("@svc/client"');
    expect(text("do-mock.test.ts")).toContain("return { SvcClient: LangfuseClient };");
    // The object a function inside the factory returns is not the module.
    expect(text("do-mock.test.ts")).toContain("return { params: 1 };");
    expect(findings("do-mock.test.ts")).toEqual([]);
  });

  it("jest.requireActual and vi.importActual: module objects, like require()", () => {
    const after = text("actual.test.ts");
    expect(after).toContain('...jest.requireActual("@svc/client"),\n  "SvcMedia": jest.fn(),');
    expect(after).toContain('const { SvcClient } = jest.requireActual<typeof import("@svc/client")>("@svc/client");');
    expect(after).toContain("export const made = new SvcClient();");
    expect(after).toContain('vi.importActual("@svc/otel")');
  });

  it("a factory that is not written inline is marked", () => {
    expect(text("opaque.test.ts")).toContain('vi.mock("@svc/client", factory);');
    expect(findings("opaque.test.ts")).toEqual([
      "4 mocks: the mock's factory does not return an object literal: rename the v5 export names it returns (LangfuseClient -> SvcClient, ...) by hand",
    ]);
  });
});
