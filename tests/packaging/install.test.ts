import { execFile } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { installApp, node24, npm, packAll, ROOT, removeDir } from "../support/packages.ts";

// The packed tarballs, installed into new apps the way the READMEs say, on Node 22 and 24 and with both
// OpenTelemetry JS lines; each app sends a traced call and a score to the dev server.

const run = promisify(execFile);

const README = {
  tracing: readFileSync(join(ROOT, "packages", "tracing", "README.md"), "utf8"),
  otel: readFileSync(join(ROOT, "packages", "otel", "README.md"), "utf8"),
};
const ROOT_MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** The two OpenTelemetry JS lines, with the packages the tracing README installs for each set-up. */
const LINES = [
  {
    line: "3.x",
    api: /^1\.10\./,
    nodeSdk: ["@opentelemetry/api", "@opentelemetry/sdk-node"],
    bare: ["@opentelemetry/api", "@opentelemetry/sdk-trace", "@opentelemetry/context-async-hooks"],
    providerImport: 'import { TracerProvider } from "@opentelemetry/sdk-trace";',
    tracePackage: "@opentelemetry/sdk-trace",
    providerClass: "TracerProvider",
  },
  {
    line: "2.x",
    api: /^1\.9\./,
    nodeSdk: ["@opentelemetry/api@~1.9.0", "@opentelemetry/sdk-node@0.223"],
    bare: ["@opentelemetry/api@~1.9.0", "@opentelemetry/sdk-trace-base@^2", "@opentelemetry/context-async-hooks@^2"],
    providerImport: 'import { BasicTracerProvider as TracerProvider } from "@opentelemetry/sdk-trace-base";',
    tracePackage: "@opentelemetry/sdk-trace-base",
    providerClass: "BasicTracerProvider",
  },
] as const;

const SVC = "@svc/tracing @svc/otel";

/** The tracing README's bare-provider set-up for a line, with a traced call and a score where it says "on shutdown". */
function bareProviderApp(providerImport: string): string {
  const block = README.tracing.match(/```ts\n([^`]*new TracerProvider\([^`]*)```/)?.[1];
  if (!block) throw new Error("the tracing README has no bare-provider example");
  const setup = block.replace(LINES[0].providerImport, providerImport);
  expect(setup).toContain(providerImport);
  const [start, shutdown] = setup.split("// ... and on shutdown:");
  return `${start}
import { SvcClient } from "@svc/client";
import { startActiveObservation } from "@svc/tracing";

const svc = new SvcClient();
const traceId: string = await startActiveObservation("first-trace-bare", async (span) => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  span.startObservation("llm-call", { model: "fake-model" }, { asType: "generation" }).update({ output: "ok" }).end();
  svc.score.trace({ otelSpan: span.otelSpan }, { name: "helpfulness", value: 0.9 });
  return span.traceId;
});
await svc.shutdown();
${shutdown}
console.log(JSON.stringify({ node: process.version, traceId, loaded: true }));
`;
}

// Exports through NodeSDK and through a bare BasicTracerProvider of the line, then shuts both down.
function appScript(tracePackage: string, providerClass: string): string {
  return `
import { trace } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { ${providerClass} as Provider } from "${tracePackage}";
import { SvcSpanProcessor } from "@svc/otel";
import { observe, propagateAttributes, startActiveObservation } from "@svc/tracing";

const options = { baseUrl: process.env.SINK_URL, publicKey: "pk", secretKey: "sk", flushInterval: 3600 };
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor(options)] });
sdk.start();
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
const callModel = observe(
  async (question) => {
    await tick();
    return "answer to " + question;
  },
  { name: "sdk-generation", asType: "generation" },
);
await startActiveObservation("sdk-root", async (root) => {
  root.update({ input: "question", metadata: { attempt: 2, cached: false, plan: { tier: "pro" } } });
  await propagateAttributes({ userId: "u-1" }, async () => {
    await tick();
    trace.getTracer("ai").startSpan("sdk-llm").end();
    await callModel("question");
  });
});
trace.getTracer("@opentelemetry/instrumentation-http").startSpan("sdk-http").end();
await sdk.shutdown();

const provider = new Provider({ spanProcessors: [new SvcSpanProcessor({ ...options, exportMode: "immediate" })] });
provider.getTracer("svc-sdk").startSpan("bare", { attributes: { "svc.observation.input": "x" } }).end();
await provider.shutdown();
console.log("app done");
`;
}

type SentSpan = {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
};

/** Every span the sink received on the OTLP route. */
function sentSpans(sink: TestServer): SentSpan[] {
  type Body = { resourceSpans: { scopeSpans: { spans: SentSpan[] }[] }[] };
  return sink.seen
    .filter((r) => r.path === "/api/public/otel/v1/traces")
    .flatMap((r) => (r.json as Body).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
}

const TSCONFIG = {
  node16: { module: "node16", moduleResolution: "node16" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
};

function writeTsconfig(dir: string, name: keyof typeof TSCONFIG, files: string[]): string {
  const file = `tsconfig.${name}.json`;
  const compilerOptions = { ...TSCONFIG[name], target: "es2022", strict: true, noEmit: true, types: ["node"] };
  writeFileSync(join(dir, file), JSON.stringify({ compilerOptions, files }, null, 2));
  return file;
}

describe("the install commands of the tracing README", () => {
  it("name both OpenTelemetry lines, for NodeSDK and for a bare provider", () => {
    for (const { nodeSdk, bare } of LINES) {
      expect(README.tracing).toContain(`npm install ${SVC} ${nodeSdk.join(" ")}`);
      expect(README.tracing).toContain(`npm install ${SVC} ${bare.join(" ")}`);
      expect(README.otel).toContain(`npm install ${SVC} ${nodeSdk.join(" ")}`);
    }
  });
});

let packed: { dir: string; tarballs: Record<string, string> };
beforeAll(() => {
  packed = packAll();
});
afterAll(() => removeDir(packed.dir));

describe.each(LINES)("packed packages in a new app, OpenTelemetry $line line", (line) => {
  let appDir = "";
  let server: DevServer;
  let sink: TestServer;
  let appOutput = "";
  let env: NodeJS.ProcessEnv = {};
  const nodes: { name: string; bin: string }[] = [{ name: "Node 22", bin: process.execPath }];

  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    sink = await startServer();
    env = {
      ...process.env,
      SVC_BASE_URL: server.url,
      SVC_PUBLIC_KEY: server.publicKey,
      SVC_SECRET_KEY: server.secretKey,
    };
    nodes.push({ name: "Node 24", bin: node24() });
    const install = new Set<string>([
      ...Object.values(packed.tarballs),
      ...line.nodeSdk,
      ...line.bare,
      "@langchain/core@^1.0.0",
      `@types/node@${ROOT_MANIFEST.devDependencies["@types/node"]}`,
    ]);
    appDir = installApp({}, { install: [...install] }).dir;
    for (const file of ["first-trace.mjs", "first-trace.cjs", "first-trace-steps.cjs", "typed.cts", "typed.mts"])
      copyFileSync(join(import.meta.dirname, "apps", file), join(appDir, file));
    writeFileSync(join(appDir, "bare.mts"), bareProviderApp(line.providerImport));
    writeFileSync(join(appDir, "wire.mjs"), appScript(line.tracePackage, line.providerClass));
    const wire = {
      cwd: appDir,
      encoding: "utf8",
      env: { ...process.env, SINK_URL: sink.url },
      timeout: 60_000,
    } as const;
    appOutput = (await run(process.execPath, ["wire.mjs"], wire)).stdout;
  });

  afterAll(async () => {
    await server?.close();
    await sink?.close();
    removeDir(appDir);
  });

  it("installs with npm, without invalid or missing peers, on the line's @opentelemetry/api", () => {
    const tree = npm(["ls", "--all"], appDir);
    const problems = tree.split("\n").filter((row) => /invalid|UNMET|missing/i.test(row) && !/OPTIONAL/.test(row));
    expect(problems).toEqual([]);
    const api = tree.match(/@opentelemetry\/api@(\d+\.\d+\.\d+)/)?.[1];
    expect(api).toMatch(line.api);
  });

  it("type-checks against the packages with moduleResolution node16 (ESM and CommonJS) and bundler", async () => {
    for (const [config, files] of [
      ["node16", ["bare.mts", "typed.mts", "typed.cts"]],
      ["bundler", ["bare.mts", "typed.mts"]],
    ] as const) {
      const project = writeTsconfig(appDir, config, [...files]);
      const result = await run(process.execPath, [TSC, "-p", project], { cwd: appDir, encoding: "utf8" }).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout }),
      );
      expect(result.stdout, config).toBe("");
    }
  });

  it.each([
    ["ESM with NodeSDK", "first-trace.mjs", "first-trace-esm"],
    ["CommonJS with NodeSDK", "first-trace.cjs", "first-trace-cjs"],
    ["TypeScript with the README's bare provider", "bare.mts", "first-trace-bare"],
  ])("sends a traced call and a score to the dev server: %s, on Node 22 and 24", async (_kind, file, rootName) => {
    for (const node of nodes) {
      const { stdout, stderr } = await run(node.bin, [file], { cwd: appDir, env, encoding: "utf8", timeout: 60_000 });
      const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
        node: string;
        traceId: string;
        loaded: boolean;
      };

      expect(report.node, node.name).toMatch(node.name === "Node 22" ? /^v22\./ : /^v24\./);
      expect(stderr, node.name).toBe("");
      expect(report.loaded, node.name).toBe(true);
      const names = server.store.spansOfTrace(report.traceId).map((span) => span.name);
      expect(names.sort(), node.name).toEqual([rootName, "llm-call"].sort());
      const scores = [...server.store.scores.values()].filter((score) => score.traceId === report.traceId);
      expect(
        scores.map((score) => [score.name, score.value]),
        node.name,
      ).toEqual([["helpfulness", 0.9]]);
    }
  });

  it("runs the svc command of @svc/client: svc doctor passes every check against the dev server", async () => {
    const bin = join(appDir, "node_modules", ".bin", "svc");
    const { stdout } = await run(bin, ["doctor"], { cwd: appDir, env, encoding: "utf8", timeout: 60_000 });

    expect(stdout).toMatch(/^PASS {2}OTLP endpoint {4}accepted a test span/m);
    expect(stdout.trim().split("\n").at(-1)).toBe("No problem found: 6 passed.");
  });

  it("exports spans through NodeSDK and a bare tracer provider to the OTLP route", () => {
    expect(appOutput).toContain("app done");
    const requests = sink.seen.filter((r) => r.path === "/api/public/otel/v1/traces");
    expect(requests.every((r) => r.headers["x-svc-ingestion-version"] === "4")).toBe(true);
    expect(requests.every((r) => r.headers["content-encoding"] === "gzip")).toBe(true);
    const spans = sentSpans(sink);
    expect(spans.map((s) => s.name).sort()).toEqual(["bare", "sdk-generation", "sdk-llm", "sdk-root"]);
    const keys = (name: string) => spans.find((s) => s.name === name)?.attributes.map((a) => a.key) ?? [];
    expect(keys("sdk-root")).toEqual(expect.arrayContaining(["svc.observation.input", "svc.internal.is_app_root"]));
    expect(keys("sdk-llm")).toContain("user.id");
  });

  it("records @svc/tracing observations: nesting across await, types and typed metadata", () => {
    const spans = sentSpans(sink);
    const span = (name: string) => spans.find((s) => s.name === name)!;
    const value = (name: string, key: string) => span(name).attributes.find((a) => a.key === key)?.value;

    expect(span("sdk-generation").parentSpanId).toBe(span("sdk-root").spanId);
    expect(value("sdk-generation", "svc.observation.type")).toEqual({ stringValue: "generation" });
    expect(value("sdk-generation", "svc.observation.output")).toEqual({ stringValue: "answer to question" });
    expect(value("sdk-generation", "user.id")).toEqual({ stringValue: "u-1" });
    expect(Number(value("sdk-root", "svc.observation.metadata.attempt")?.intValue)).toBe(2);
    expect(value("sdk-root", "svc.observation.metadata.cached")).toEqual({ boolValue: false });
    expect(value("sdk-root", "svc.observation.metadata.plan.tier")).toEqual({ stringValue: "pro" });
  });
});

describe("a 2.x package added to an app that has the @opentelemetry/api npm picks by default", () => {
  it("fails with ERESOLVE, as the tracing README warns", () => {
    const app = installApp({}, { install: ["@opentelemetry/api"] });
    let output = "";
    try {
      npm(["install", "@opentelemetry/sdk-trace-base@^2"], app.dir);
    } catch (error) {
      output = String((error as { stderr?: string }).stderr);
    } finally {
      removeDir(app.dir);
    }

    expect(output).toContain("ERESOLVE");
    expect(README.tracing).toMatch(/stops with\s+`ERESOLVE`/);
  });
});
