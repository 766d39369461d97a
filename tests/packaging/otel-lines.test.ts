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
import { propagateAttributes, startActiveObservation } from "@svc/tracing";

const options = { baseUrl: process.env.SINK_URL, publicKey: "pk", secretKey: "sk", flushInterval: 3600 };
const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor(options)] });
sdk.start();
startActiveObservation("sdk-root", (root) => {
  root.update({ input: "question" });
  propagateAttributes({ userId: "u-1" }, () => trace.getTracer("ai").startSpan("sdk-llm").end());
});
trace.getTracer("@opentelemetry/instrumentation-http").startSpan("sdk-http").end();
await sdk.shutdown();

const provider = new Provider({ spanProcessors: [new SvcSpanProcessor({ ...options, exportMode: "immediate" })] });
provider.getTracer("svc-sdk").startSpan("bare", { attributes: { "svc.observation.input": "x" } }).end();
await provider.shutdown();
console.log("app done");
`;
}

describe.each(LINES)("SvcSpanProcessor with the OpenTelemetry $line line", ({ deps, tracePackage, providerClass }) => {
  let packDir = "";
  let appDir = "";
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

  it("exports spans through NodeSDK and a bare tracer provider to the OTLP route", async () => {
    writeFileSync(join(appDir, "app.mjs"), appScript(tracePackage, providerClass));

    const { stdout } = await run("node", ["app.mjs"], {
      cwd: appDir,
      encoding: "utf8",
      env: { ...process.env, SINK_URL: sink.url },
      timeout: 60_000,
    });

    expect(stdout).toContain("app done");
    const requests = sink.seen.filter((r) => r.path === "/api/public/otel/v1/traces");
    expect(requests.every((r) => r.headers["x-svc-ingestion-version"] === "4")).toBe(true);
    expect(requests.every((r) => r.headers["content-encoding"] === "gzip")).toBe(true);
    type Body = { resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string }[] }[] }[] }[] };
    const spans = requests.flatMap((r) =>
      (r.json as Body).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
    );
    expect(spans.map((s) => s.name).sort()).toEqual(["bare", "sdk-llm", "sdk-root"]);
    const keys = (name: string) => spans.find((s) => s.name === name)?.attributes.map((a) => a.key) ?? [];
    expect(keys("sdk-root")).toEqual(expect.arrayContaining(["svc.observation.input", "svc.internal.is_app_root"]));
    expect(keys("sdk-llm")).toContain("user.id");
  });
});
