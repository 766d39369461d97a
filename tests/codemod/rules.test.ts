import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../tools/codemod/src/run.ts";
import { REQUEST_OPTIONS_PLACEHOLDER } from "../../tools/codemod/src/tables/api.ts";
import { rewrite } from "../support/codemod.ts";
import { removeDir } from "../support/packages.ts";

// Each describe rewrites one project of small files in one run (loading the v5 declarations is most of a run's
// cost); each test looks at one file. `client.ts` builds the v5 client the other files use.
const CLIENT = 'import { LangfuseClient } from "@langfuse/client";\nexport const langfuse = new LangfuseClient();\n';

function findings(result: RunResult, path: string) {
  return result.files.find((file) => file.path === path)?.findings ?? [];
}

function rewriteOnce(files: Record<string, string>, v5Types = true) {
  let run: ReturnType<typeof rewrite> | undefined;
  beforeAll(() => {
    run = rewrite(files, { v5Types, keep: true });
  }, 60_000);
  afterAll(() => {
    if (run) removeDir(join(run.dir, ".."));
  });
  return {
    text: (path: string) => run?.text(path) ?? "",
    findings: (path: string) => (run ? findings(run.result, path) : []),
    result: () => run?.result,
  };
}

describe("imports and renamed exports", () => {
  const run = rewriteOnce({
    "alias.ts": 'import { LangfuseClient as Client } from "@langfuse/client";\nexport const c = new Client();\n',
    "clash.ts":
      'import { LangfuseClient } from "@langfuse/client";\nclass SvcClient {}\nexport const c = [new LangfuseClient(), new SvcClient()];\n',
    "merge.ts":
      'import { setActiveTraceIO, updateActiveObservation } from "@langfuse/tracing";\nsetActiveTraceIO({ input: 1 });\nupdateActiveObservation({ output: 2 });\n',
    "reexport.ts":
      'export { LangfuseClient } from "@langfuse/client";\nexport { isLangfuseSpan as isOurs } from "@langfuse/otel";\nexport * from "@langfuse/tracing";\n',
    "dynamic.ts":
      'export async function load() {\n  const { LangfuseSpanProcessor } = await import("@langfuse/otel");\n  return new LangfuseSpanProcessor();\n}\n',
    "mock.ts": 'declare const jest: { mock(name: string): void };\njest.mock("@langfuse/client");\n',
    "equals.ts": 'import tracing = require("@langfuse/tracing");\nexport const tracer = tracing.getLangfuseTracer();\n',
    "other.ts": 'import { observeOpenAI } from "@langfuse/openai";\nexport { observeOpenAI };\n',
    "core.ts": [
      'import { LangfuseOtelSpanAttributes, type ObservationV2, getEnv } from "@langfuse/core";',
      "export const key = LangfuseOtelSpanAttributes.TRACE_NAME;",
      "export const first = (o: ObservationV2[]) => o[0]?.id ?? getEnv('X');",
      "",
    ].join("\n"),
    "core-namespace.ts":
      'import * as core from "@langfuse/core";\nexport const level = core.LogLevel.DEBUG;\nexport type Body = core.ScoreBody;\n',
    "core-value.ts": 'import { ScoreDataType } from "@langfuse/core";\nexport const numeric = ScoreDataType.Numeric;\n',
    "types.ts": [
      'import type { LangfuseSpan, LangfuseGenerationAttributes } from "@langfuse/tracing";',
      "export function name(span: LangfuseSpan, attributes: LangfuseGenerationAttributes) {",
      "  return [span.id, attributes.model];",
      "}",
      "",
    ].join("\n"),
  });

  it("renames the imported name and keeps a local alias", () => {
    expect(run.text("alias.ts")).toBe(
      'import { SvcClient as Client } from "@svc/client";\nexport const c = new Client();\n',
    );
  });

  it("keeps the old local name as an alias when the new name is taken in the file", () => {
    expect(run.text("clash.ts")).toContain('import { SvcClient as LangfuseClient } from "@svc/client";');
    expect(run.text("clash.ts")).toContain("new LangfuseClient(), new SvcClient()");
  });

  it("drops setActiveTraceIO when updateActiveObservation is imported already, and marks the call for review", () => {
    expect(run.text("merge.ts")).toBe(
      'import { updateActiveObservation } from "@svc/tracing";\n' +
        "// svc-codemod: rewritten, check: trace input and output are now those of the root observation (MIGRATION-v6.md#trace-input-and-output)\n" +
        "updateActiveObservation({ input: 1 });\nupdateActiveObservation({ output: 2 });\n",
    );
    expect(run.findings("merge.ts")).toMatchObject([{ rule: "trace-io", kind: "review", line: 3 }]);
  });

  it("keeps the names a module re-exports, and marks `export *` for review", () => {
    const text = run.text("reexport.ts");
    expect(text).toContain('export { SvcClient as LangfuseClient } from "@svc/client";');
    expect(text).toContain('export { isSvcSpan as isOurs } from "@svc/otel";');
    expect(text).toContain('export * from "@svc/tracing";');
    expect(run.findings("reexport.ts")).toMatchObject([{ kind: "review", rule: "packages" }]);
  });

  it("rewrites names destructured from a dynamic import", () => {
    expect(run.text("dynamic.ts")).toContain('const { SvcSpanProcessor } = await import("@svc/otel");');
    expect(run.text("dynamic.ts")).toContain("return new SvcSpanProcessor();");
  });

  it("renames the module given to a test tool's mock", () => {
    expect(run.text("mock.ts")).toContain('jest.mock("@svc/client");');
  });

  it("rewrites members of an `import x = require()` module object", () => {
    expect(run.text("equals.ts")).toBe(
      'import tracing = require("@svc/tracing");\nexport const tracer = tracing.getSvcTracer();\n',
    );
  });

  it("marks a @langfuse package that has no v6 package and leaves it", () => {
    expect(run.text("other.ts")).toContain('import { observeOpenAI } from "@langfuse/openai";');
    expect(run.findings("other.ts")).toMatchObject([
      {
        kind: "unchanged",
        rule: "packages",
        message: "@langfuse/openai (observeOpenAI) has no v6 package: trace the model calls as the guide shows",
        line: 2,
      },
    ]);
  });

  it("splits a @langfuse/core import by v6 package, REST types through SvcAPI, and keeps what has no v6 export", () => {
    const text = run.text("core.ts");
    expect(text).toContain('import { SvcOtelSpanAttributes } from "@svc/tracing";');
    expect(text).toContain('import type { SvcAPI } from "@svc/client";');
    expect(text).toContain('import { getEnv } from "@langfuse/core";');
    expect(text).toContain("export const key = SvcOtelSpanAttributes.TRACE_NAME;");
    expect(text).toContain("(o: SvcAPI.ObservationV2[])");
    expect(run.findings("core.ts").map((f) => f.message)).toEqual([
      "getEnv of @langfuse/core has no v6 export (@langfuse/core was the SDK's internal package)",
      "getEnv of @langfuse/core has no v6 export (@langfuse/core was the SDK's internal package)",
    ]);
  });

  it("marks a @langfuse/core namespace import whose names go to different v6 packages", () => {
    // LogLevel goes to @svc/tracing, ScoreBody to @svc/client: no one module replaces this namespace.
    expect(run.text("core-namespace.ts")).toContain('import * as core from "@langfuse/core";');
    expect(run.findings("core-namespace.ts")).toMatchObject([{ kind: "unchanged", rule: "packages" }]);
  });

  it("marks a REST type of @langfuse/core used as a value (v6 has it as a type only)", () => {
    expect(run.text("core-value.ts")).toContain('import { ScoreDataType } from "@langfuse/core";');
    expect(run.findings("core-value.ts")).toMatchObject([
      { kind: "unchanged", message: "ScoreDataType is a type only in v6; this use has no v6 form" },
    ]);
  });

  it("renames type imports and their uses in types", () => {
    expect(run.text("types.ts")).toBe(
      [
        'import type { SvcSpan, SvcGenerationAttributes } from "@svc/tracing";',
        "export function name(span: SvcSpan, attributes: SvcGenerationAttributes) {",
        "  return [span.id, attributes.model];",
        "}",
        "",
      ].join("\n"),
    );
  });
});

describe("environment variable names", () => {
  const run = rewriteOnce({
    "env.ts": [
      "const key = process.env.LANGFUSE_PUBLIC_KEY;",
      'const secret = process.env["LANGFUSE_SECRET_KEY"];',
      "const { LANGFUSE_BASE_URL, LANGFUSE_RELEASE: release = 'dev' } = process.env;",
      "const child = { env: { LANGFUSE_FLUSH_AT: '1', 'LANGFUSE_LOG_LEVEL': 'debug' } };",
      "const names = [`LANGFUSE_DEBUG`, 'LANGFUSE_TRACING_ENVIRONMENT'];",
      "interface Env { LANGFUSE_TIMEOUT?: string }",
      "const mine = process.env.LANGFUSE_PROJECT ?? process.env.LANGFUSE_HOST;",
      "const LANGFUSE_MEDIA_UPLOAD_ENABLED = 'a variable, not the environment';",
      "export { key, secret, LANGFUSE_BASE_URL, release, child, names, mine, LANGFUSE_MEDIA_UPLOAD_ENABLED };",
      "export type { Env };",
      "",
    ].join("\n"),
  });

  it("renames the variables the v5 SDK read, wherever code names them, and nothing else", () => {
    expect(run.text("env.ts")).toBe(
      [
        "const key = process.env.SVC_PUBLIC_KEY;",
        'const secret = process.env["SVC_SECRET_KEY"];',
        "const { SVC_BASE_URL: LANGFUSE_BASE_URL, SVC_RELEASE: release = 'dev' } = process.env;",
        "const child = { env: { SVC_FLUSH_AT: '1', 'SVC_LOG_LEVEL': 'debug' } };",
        "const names = [`SVC_DEBUG`, 'SVC_TRACING_ENVIRONMENT'];",
        "interface Env { SVC_TIMEOUT?: string }",
        "const mine = process.env.LANGFUSE_PROJECT ?? process.env.LANGFUSE_HOST;",
        "const LANGFUSE_MEDIA_UPLOAD_ENABLED = 'a variable, not the environment';",
        "export { key, secret, LANGFUSE_BASE_URL, release, child, names, mine, LANGFUSE_MEDIA_UPLOAD_ENABLED };",
        "export type { Env };",
        "",
      ].join("\n"),
    );
  });

  it("lists the renamed variables so that the summary can ask for them to be renamed where they are set", () => {
    const file = run.result()?.files.find((f) => f.path === "env.ts");
    expect(file?.envNames).toEqual([
      "LANGFUSE_BASE_URL",
      "LANGFUSE_DEBUG",
      "LANGFUSE_FLUSH_AT",
      "LANGFUSE_LOG_LEVEL",
      "LANGFUSE_PUBLIC_KEY",
      "LANGFUSE_RELEASE",
      "LANGFUSE_SECRET_KEY",
      "LANGFUSE_TIMEOUT",
      "LANGFUSE_TRACING_ENVIRONMENT",
    ]);
  });
});

// Every v5 method of the 41, called with request options: `{}` goes in front of them (and the moved ones move).
const placeholderCalls = Object.entries(REQUEST_OPTIONS_PLACEHOLDER).map(([path, count]) => {
  const args = Array.from({ length: count }, (_, i) => `"a${i}"`);
  const moved = path
    .replace(/^unstable\.(evaluationRules|evaluators)\./, "$1.")
    .replace(/^legacy\.scoreV1\.delete$/, "scores.delete");
  return {
    path,
    before: `langfuse.api.${path}(${[...args, "options"].join(", ")})`,
    after: `langfuse.api.${moved}(${[...args, "{}", "options"].join(", ")})`,
  };
});

describe("the {} placeholder of the generated methods without a request", () => {
  const body = (calls: string[]) =>
    `import { langfuse } from "./client.js";\nconst options = { timeoutInSeconds: 1 };\nexport async function all() {\n${calls.map((c) => `  await ${c};`).join("\n")}\n}\n`;
  const run = rewriteOnce({
    "client.ts": CLIENT,
    "all.ts": body(placeholderCalls.map((c) => c.before)),
    "edge.ts": [
      'import { langfuse } from "./client.js";',
      "const args: [string, { maxRetries: number }] = ['m-1', { maxRetries: 1 }];",
      "export async function edge() {",
      "  await langfuse.api.models.get('m-1');",
      "  await langfuse.api.models.get('m-1', {});",
      "  await langfuse.api.models.get(...args);",
      "  await langfuse.api.models.list({ page: 1 }, { maxRetries: 1 });",
      "}",
      "",
    ].join("\n"),
  });

  it.each(placeholderCalls)("$path gets {} before its request options", ({ after }) => {
    expect(run.text("all.ts")).toContain(`  await ${after};\n`);
  });

  it("covers the 40 v5 methods of the 41 (the 41st, unstable.skills.deleteVersion, is new in v6)", () => {
    expect(placeholderCalls).toHaveLength(40);
  });

  it("leaves calls without options, with {} options and of methods that take a request; marks spread arguments", () => {
    const text = run.text("edge.ts");
    expect(text).toContain("  await langfuse.api.models.get('m-1');\n");
    expect(text).toContain("  await langfuse.api.models.get('m-1', {});\n");
    expect(text).toContain("  await langfuse.api.models.list({ page: 1 }, { maxRetries: 1 });\n");
    expect(run.findings("edge.ts")).toMatchObject([
      { kind: "unchanged", rule: "request-options", line: 7, message: expect.stringContaining("spread") },
    ]);
  });
});

describe("removed and moved REST methods and client shortcuts", () => {
  const run = rewriteOnce({
    "client.ts": CLIENT,
    "removed.ts": [
      'import { langfuse } from "./client.js";',
      "export async function removed() {",
      "  await langfuse.getDatasetRun('questions', 'run-1');",
      "  await langfuse.api.datasetRunItems.list({ datasetId: 'd', runName: 'r' });",
      "  await langfuse.api.datasets.deleteRun('questions', 'run-1');",
      "  await langfuse.api.ingestion.batch({ batch: [] });",
      "  await langfuse.api.sessions.list();",
      "}",
      "",
    ].join("\n"),
    "moved.ts": [
      'import { langfuse } from "./client.js";',
      "export async function moved() {",
      "  const evaluators = langfuse.api.unstable.evaluators;",
      "  await evaluators.get('e-1');",
      "  await langfuse.api.unstable.evaluators.list({});",
      "  await langfuse.api.legacy.metricsV1.metrics({ query: '{}' });",
      "  return langfuse.fetchTrace('t-1', { fields: 'core' });",
      "}",
      "",
    ].join("\n"),
  });

  it("marks what has no v6 form with the section that explains the replacement", () => {
    expect(run.findings("removed.ts").map((f) => [f.line, f.rule, f.section])).toEqual([
      [4, "client-aliases", "dataset-runs"],
      [6, "api-methods", "dataset-runs"],
      [8, "api-methods", "dataset-runs"],
      [10, "api-methods", "moved-and-removed-rest-methods"],
      [12, "api-methods", "reading-traces-sessions-and-observations"],
    ]);
    expect(run.text("removed.ts")).toContain("  await langfuse.getDatasetRun('questions', 'run-1');");
  });

  it("moves methods, marks a move through a variable, and a reader whose request has no v6 form", () => {
    const text = run.text("moved.ts");
    expect(text).toContain("  await langfuse.api.evaluators.list({});");
    expect(text).toContain("  await langfuse.api.metrics.metrics({ query: '{}' });");
    expect(text).toContain("  await evaluators.get('e-1');");
    expect(text).toContain("  return langfuse.fetchTrace('t-1', { fields: 'core' });");
    expect(run.findings("moved.ts").map((f) => [f.line, f.kind, f.section])).toEqual([
      [5, "unchanged", "moved-and-removed-rest-methods"],
      [8, "review", "moved-and-removed-rest-methods"],
      [10, "unchanged", "reading-traces-sessions-and-observations"],
    ]);
  });
});

describe("scores", () => {
  const run = rewriteOnce({
    "client.ts": CLIENT,
    "scores.ts": [
      'import { langfuse } from "./client.js";',
      "const score = { name: 'n', value: 1 };",
      "export async function scores(list: (typeof score)[]) {",
      "  const { id } = await langfuse.api.scores.create(score);",
      "  const later = langfuse.api.scores.create(score).then((response) => response.id);",
      "  await langfuse.api.scores.create(...list);",
      "  await langfuse.api.scores.getMany({ environment: ['prod', 'dev'], page: 2, datasetRunId: 'r-1' });",
      "  return [id, later];",
      "}",
      "",
    ].join("\n"),
  });

  it("wraps the score in an array, and marks reads of the response's id and a spread score", () => {
    const text = run.text("scores.ts");
    expect(text).toContain("  const { id } = await langfuse.api.scores.create([score]);");
    expect(text).toContain("  const later = langfuse.api.scores.create([score]).then((response) => response.id);");
    expect(text).toContain("  await langfuse.api.scores.create(...list);");
    const marked = run.findings("scores.ts").filter((f) => f.kind === "unchanged");
    expect(marked.map((f) => f.message.slice(0, 44))).toEqual([
      "the response of api.scores.create() has no i",
      "the response of api.scores.create() has no i",
      "api.scores.create() takes an array of scores",
      'the filter "page" has no v6 form',
    ]);
  });

  it("maps Scores v2 filters to v3: lists to comma lists, dataset runs to experiments", () => {
    expect(run.text("scores.ts")).toContain(
      "  await langfuse.api.scores.getMany({ environment: ['prod', 'dev'].join(\",\"), page: 2, experimentId: 'r-1' });",
    );
  });
});

describe("trace input and output, and dataset item links", () => {
  const run = rewriteOnce({
    "client.ts": CLIENT,
    "io.ts": [
      'import { startObservation, createTraceAttributes, type LangfuseTraceAttributes } from "@langfuse/tracing";',
      "const io: LangfuseTraceAttributes = { input: 1 };",
      "const event = startObservation('e', {}, { asType: 'event' });",
      "event.setTraceIO(io);",
      "export const attributes = createTraceAttributes(io);",
      "",
    ].join("\n"),
    "links.ts": [
      'import { langfuse } from "./client.js";',
      "const plain = { link: (a: string, b: string) => a + b };",
      "export async function links() {",
      "  const dataset = await langfuse.dataset.get('d');",
      "  const item = dataset.items[0];",
      "  if (item) await item.link({ otelSpan: undefined as never }, 'run');",
      "  return plain.link('a', 'b');",
      "}",
      "",
    ].join("\n"),
  });

  it("marks setTraceIO on an event (v6 events have no update), createTraceAttributes and LangfuseTraceAttributes", () => {
    expect(run.findings("io.ts").map((f) => [f.line, f.rule, f.kind])).toEqual([
      [3, "exports", "unchanged"],
      [3, "exports", "unchanged"],
      [7, "trace-io", "unchanged"],
      [9, "exports", "unchanged"],
    ]);
  });

  it("marks link() of a dataset item and leaves another object's link()", () => {
    expect(run.findings("links.ts")).toMatchObject([{ rule: "dataset-link", line: 7 }]);
    expect(run.text("links.ts")).toContain("  return plain.link('a', 'b');");
  });
});

describe("package.json", () => {
  const run = rewriteOnce(
    {
      "package.json": JSON.stringify(
        {
          name: "app",
          dependencies: {
            "@langfuse/client": "5.10.1",
            "@langfuse/core": "^5.0.0",
            "@langfuse/openai": "^5.0.0",
            "@langfuse/browser": "^5.0.0",
          },
          devDependencies: { "@langfuse/tracing": "^5.9.0", "@svc/tracing": "^6.0.0", "@langchain/core": "^0.3.8" },
          peerDependencies: { "@langfuse/langchain": ">=5" },
        },
        null,
        2,
      ),
      "broken/package.json": "{ not json",
    },
    false,
  );

  it("renames the v5 packages, keeps exact pins exact, and drops a v5 package whose v6 one is listed already", () => {
    expect(JSON.parse(run.text("package.json"))).toEqual({
      name: "app",
      dependencies: { "@svc/client": "6.0.0", "@langfuse/openai": "^5.0.0", "@langfuse/browser": "^5.0.0" },
      devDependencies: { "@svc/tracing": "^6.0.0", "@langchain/core": "^0.3.8" },
      peerDependencies: { "@svc/langchain": "^6.0.0" },
    });
  });

  it("reports @langfuse/core, packages without a v6 version and a @langchain/core older than 1.0", () => {
    expect(run.findings("package.json").map((f) => [f.kind, f.message])).toEqual([
      ["review", "@langfuse/core has no v6 package: depend on the @svc packages your code imports now"],
      ["unchanged", "@langfuse/openai (observeOpenAI) has no v6 package: trace the model calls as the guide shows"],
      ["unchanged", "@langfuse/browser has no v6 package: its score client is SvcBrowserClient of @svc/client/browser"],
      ["unchanged", "@svc/langchain needs @langchain/core ^1.0.0 (this range is ^0.3.8)"],
    ]);
  });

  it("leaves a package.json that is not JSON", () => {
    expect(run.text("broken/package.json")).toBe("{ not json");
  });
});

describe("files the codemod rewrites", () => {
  it("keeps Windows line breaks and the byte order mark", () => {
    const { text } = rewrite(
      {
        "crlf.ts":
          '\uFEFFimport { LangfuseClient } from "@langfuse/client";\r\nnew LangfuseClient().getDatasetRuns("d");\r\n',
      },
      { v5Types: true },
    );
    expect(text("crlf.ts")).toBe(
      '\uFEFFimport { SvcClient } from "@svc/client";\r\n' +
        "// svc-codemod: left as is: dataset runs are experiments in v6: read them with api.experiments.list() and api.experiments.listItems() (MIGRATION-v6.md#dataset-runs)\r\n" +
        'new SvcClient().getDatasetRuns("d");\r\n',
    );
  });

  it("writes nothing in a dry run, and reports the lines of the files as they are", () => {
    const files = {
      "a.ts": 'import { LangfuseClient } from "@langfuse/client";\n\nnew LangfuseClient().getDatasetRuns("d");\n',
    };
    const { after, result } = rewrite(files, { v5Types: true, dryRun: true });

    expect(after).toEqual(files);
    expect(result.written).toBe(false);
    expect(result.files[0]).toMatchObject({ path: "a.ts", changed: true, findings: [{ line: 3 }] });
  });

  it("skips node_modules and build output", () => {
    const v5 = 'import { LangfuseClient } from "@langfuse/client";\n';
    const { after, result } = rewrite(
      { "src/a.ts": v5, "dist/a.js": v5, "build/a.js": v5, "vendor/node_modules/x/a.js": v5 },
      { v5Types: false },
    );
    expect(result.files.map((f) => f.path)).toEqual(["src/a.ts"]);
    expect(after["dist/a.js"]).toBe(v5);
  });
});

describe("project settings", () => {
  it("reads the code with default options, and says so, when the tsconfig cannot be read", () => {
    const { result, text } = rewrite(
      {
        "tsconfig.json": '{ "compilerOptions": { "module": ',
        "a.ts": 'import { LangfuseClient } from "@langfuse/client";\nexport const c = new LangfuseClient();\n',
      },
      { v5Types: true },
    );
    expect(text("a.ts")).toBe('import { SvcClient } from "@svc/client";\nexport const c = new SvcClient();\n');
    expect(result.warnings).toEqual([
      expect.stringMatching(/tsconfig\.json could not be read \(.+\); default options used\.$/),
    ]);
  });
});
