import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { installApp, packAll, removeDir } from "../support/packages.ts";

const run = promisify(execFile);

// Both OpenTelemetry JS lines users have today. Each package of a line pins @opentelemetry/api to its own range.
const LINES = [
  {
    line: "2.x",
    deps: {
      "@opentelemetry/api": "1.9.1",
      "@opentelemetry/sdk-trace-base": "2.12.1",
      "@opentelemetry/sdk-node": "0.223.0",
    },
    tracePackage: "@opentelemetry/sdk-trace-base",
    providerClass: "BasicTracerProvider",
  },
  {
    line: "3.x",
    deps: {
      "@opentelemetry/api": "1.10.0",
      "@opentelemetry/sdk-trace": "3.1.1",
      "@opentelemetry/sdk-node": "0.301.0",
    },
    tracePackage: "@opentelemetry/sdk-trace",
    providerClass: "TracerProvider",
  },
] as const;

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

describe.each(LINES)("SvcSpanProcessor with the OpenTelemetry $line line", ({ deps, tracePackage, providerClass }) => {
  let packDir = "";
  let appDir = "";
  let appOutput = "";
  let sink: TestServer;

  beforeAll(async () => {
    sink = await startServer();
    const packed = packAll();
    packDir = packed.dir;
    appDir = installApp({
      "@svc/tracing": `file:${packed.tarballs["@svc/tracing"]}`,
      "@svc/otel": `file:${packed.tarballs["@svc/otel"]}`,
      ...deps,
    }).dir;
    writeFileSync(join(appDir, "app.mjs"), appScript(tracePackage, providerClass));
    appOutput = (
      await run("node", ["app.mjs"], {
        cwd: appDir,
        encoding: "utf8",
        env: { ...process.env, SINK_URL: sink.url },
        timeout: 60_000,
      })
    ).stdout;
  });

  afterAll(async () => {
    await sink?.close();
    removeDir(packDir);
    removeDir(appDir);
  });

  it("installs with npm without invalid or missing peers", async () => {
    const { stdout } = await run("npm", ["ls", "--all"], { cwd: appDir, encoding: "utf8" });
    expect(stdout).not.toMatch(/invalid|UNMET|missing/i);
    expect(stdout).toContain(`@opentelemetry/api@${deps["@opentelemetry/api"]}`);
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
