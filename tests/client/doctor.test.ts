import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { metrics } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { type DoctorReport, SvcClient, type SvcClientParams } from "@svc/client";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { setSvcTracerProvider } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { useDevServer } from "../support/dev-server.ts";
import { faultServer, SILENT, script, timed } from "../support/faults.ts";
import type { Reply, SeenRequest, TestServer } from "../support/http-server.ts";

const PROJECTS = {
  data: [{ id: "p-1", name: "Support bot", organization: { id: "o-1", name: "Acme" }, metadata: {} }],
};
const KEYS = { publicKey: "pk-test", secretKey: "sk-test-secret" };

/** A scripted svc server: health, projects and OTLP answer as a good server does unless `routes` says otherwise. */
async function scripted(routes: Partial<Record<"health" | "projects" | "otlp", Reply>> = {}): Promise<TestServer> {
  return faultServer((req: SeenRequest) => {
    if (req.path === "/api/public/health") return routes.health ?? { json: { status: "OK", version: "4.60.0" } };
    if (req.path === "/api/public/projects") return routes.projects ?? { json: PROJECTS };
    if (req.path === "/api/public/otel/v1/traces") return routes.otlp ?? { json: {} };
    return { status: 404, json: { message: "no such route" } };
  });
}

function client(params: SvcClientParams): SvcClient {
  const svc = new SvcClient(params);
  onTestFinished(() => svc.shutdown());
  return svc;
}

/** A tracer provider with the span processor, as the one svc spans go to, for the current test. */
function registerTracing(baseUrl: string, params: SvcSpanProcessorParams = {}) {
  const processor = new SvcSpanProcessor({ baseUrl, ...KEYS, ...params }, {});
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  setSvcTracerProvider(provider);
  onTestFinished(async () => {
    setSvcTracerProvider(null);
    await provider.shutdown();
  });
  return { processor, provider };
}

function line(report: DoctorReport, name: string): string {
  const check = report.checks.find((c) => c.name === name);
  if (!check) throw new Error(`no check "${name}" in:\n${report.toString()}`);
  return `${check.status} ${check.detail}${check.fix ? ` | fix: ${check.fix}` : ""}`;
}

function statuses(report: DoctorReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
}

describe("svc.doctor() against the dev server", () => {
  it("passes every check of a good set-up, and sends one test span with gzip", async () => {
    const server = await useDevServer();
    const keys = { publicKey: server.publicKey, secretKey: server.secretKey };
    const { processor } = registerTracing(server.url, keys);
    const svc = client({ baseUrl: server.url, ...keys });

    const report = await svc.doctor();

    expect(statuses(report)).toEqual({
      keys: "pass",
      "base URL": "pass",
      server: "pass",
      credentials: "pass",
      clock: "pass",
      "OTLP endpoint": "pass",
      "tracer provider": "pass",
      "span export": "pass",
    });
    expect(report.ok).toBe(true);
    expect(line(report, "credentials")).toBe('pass accepted for project "Dev project" (dev-project)');
    expect(line(report, "OTLP endpoint")).toMatch(
      /^pass accepted a test span, http\/json, gzip \(as SvcSpanProcessor sends\): trace [0-9a-f]{32} in environment sdk-doctor$/,
    );
    expect([...server.store.spans.values()].map((s) => s.name)).toEqual(["svc doctor test span"]);
    expect(processor.health()).toMatchObject({ queued: 0, sent: 0 }); // the probe span is never exported
  });

  it("prints one line per check and a summary, and never the secret key", async () => {
    const server = await useDevServer({ secretKey: "sk-very-secret-value" });
    const svc = client({ baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey });

    const text = (await svc.doctor()).toString();

    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^svc doctor: SDK \d+\.\d+\.\d+/);
    expect(lines.slice(1, -1).map((l) => l.slice(0, 4))).toEqual([
      "PASS",
      "PASS",
      "PASS",
      "PASS",
      "PASS",
      "PASS",
      "FAIL", // no tracer provider in this test
      "SKIP",
    ]);
    expect(lines.at(-1)).toBe("Problems found: 6 passed, 1 failed, 1 skipped.");
    expect(text).not.toContain("sk-very-secret-value");
  });
});

describe("svc.doctor() against a scripted server", () => {
  it("fails the credentials on a 401 with the fix about the keys, and skips the test span", async () => {
    const server = await scripted({ projects: { status: 401, json: { message: "Invalid credentials" } } });
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(report.ok).toBe(false);
    expect(line(report, "credentials")).toMatch(
      /^fail HTTP 401 from 127\.0\.0\.1:\d+ GET \/api\/public\/projects: \{"message":"Invalid credentials"\} \| fix: Check the public and secret keys/,
    );
    expect(line(report, "OTLP endpoint")).toBe("skip skipped: the credentials were not accepted");
    expect(server.seen.map((r) => r.path)).not.toContain("/api/public/otel/v1/traces");
  });

  it("ends within twice its timeout against a server that never answers, and skips what needs an answer", async () => {
    const server = await faultServer(SILENT);
    const svc = client({ baseUrl: server.url, ...KEYS });

    const { value: report, ms } = await timed(() => svc.doctor({ timeout: 0.3 }));

    expect(ms).toBeLessThan(2 * 300 + 1_000);
    expect(line(report, "server")).toMatch(
      /^fail no answer within 300 ms from 127\.0\.0\.1:\d+ GET \/api\/public\/health/,
    );
    expect(statuses(report)).toMatchObject({ credentials: "skip", clock: "skip", "OTLP endpoint": "skip" });
  });

  it("fails the clock when the server's Date is 10 minutes behind the local clock", async () => {
    const date = new Date(Date.now() - 10 * 60_000).toUTCString();
    const server = await scripted({
      health: { json: { status: "OK", version: "4.60.0" }, headers: { date } },
      projects: { json: PROJECTS, headers: { date } },
    });
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "clock")).toMatch(
      /^fail the local clock is 10 min ahead of the server's \| fix: synchronise the clock \(NTP\)/,
    );
  });

  it("fails the test span that the OTLP endpoint refuses, with the fix for a proxy that refuses gzip", async () => {
    const server = await scripted({ otlp: { status: 415, json: { message: "unsupported encoding" } } });
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "OTLP endpoint")).toMatch(
      /^fail HTTP 415 from 127\.0\.0\.1:\d+ POST \/api\/public\/otel\/v1\/traces: .* \| fix: a proxy may refuse compressed requests: set SVC_OTEL_COMPRESSION=none/,
    );
    const sent = server.seen.find((r) => r.path === "/api/public/otel/v1/traces");
    expect(sent?.headers).toMatchObject({ "content-encoding": "gzip", "x-svc-ingestion-version": "4" });
    expect(sent?.json).toMatchObject({
      resourceSpans: [{ scopeSpans: [{ spans: [{ name: "svc doctor test span" }] }] }],
    });
  });

  it("fails a server older than the oldest version SDK v6 supports", async () => {
    const server = await scripted({ health: { json: { status: "OK", version: "4.12.3" } } });
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "server")).toMatch(
      /^fail reachable \(\d+ ms\), server version 4\.12\.3, older than 4\.59\.0/,
    );
  });

  it("fails an address that answers, but not as an svc server", async () => {
    const server = await scripted({ health: { text: "<html>Sign in</html>" } });
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "server")).toMatch(
      /^fail 127\.0\.0\.1:\d+ answered GET \/api\/public\/health, but not as an svc server does/,
    );
  });
});

describe("svc.doctor() on the set-up itself", () => {
  it("fails missing keys, and runs no check that needs them", async () => {
    const server = await scripted();
    const svc = client({ baseUrl: server.url });

    const report = await svc.doctor();

    expect(line(report, "keys")).toMatch(
      /^fail no public key \(SVC_PUBLIC_KEY\) and no secret key \(SVC_SECRET_KEY\) \| fix: set SVC_PUBLIC_KEY/,
    );
    expect(statuses(report)).toMatchObject({ server: "pass", credentials: "skip", "OTLP endpoint": "skip" });
  });

  it("fails swapped keys without printing either", async () => {
    const server = await scripted();
    const svc = client({ baseUrl: server.url, publicKey: "sk-swapped-secret", secretKey: "pk-swapped-public" });

    const report = await svc.doctor();

    expect(line(report, "keys")).toMatch(/^fail the keys are swapped/);
    expect(report.toString()).not.toContain("sk-swapped-secret");
  });

  it("fails a key with quotes around it", async () => {
    const server = await scripted();
    const svc = client({ baseUrl: server.url, publicKey: '"pk-quoted"', secretKey: "sk-ok" });

    expect(line(await svc.doctor(), "keys")).toMatch(/^fail a key contains spaces, quotes or angle brackets/);
  });

  it("fails plain http to a host that is not local, and warns about a base URL that ends with the API path", async () => {
    const remote = client({ baseUrl: "http://svc.example.com", ...KEYS });
    const withPath = client({ baseUrl: "https://svc.example.com/api/public", ...KEYS });

    const [a, b] = await Promise.all([remote.doctor({ timeout: 0.01 }), withPath.doctor({ timeout: 0.01 })]);

    expect(line(a, "base URL")).toMatch(
      /^fail http:\/\/svc\.example\.com \(option\) uses plain http .* \| fix: use https:\/\/svc\.example\.com$/,
    );
    expect(line(b, "base URL")).toMatch(
      /^warn .*ends with \/api\/public, which the SDK adds itself; it is used without it \| fix: set the base URL without it: https:\/\/svc\.example\.com$/,
    );
  });

  it("fails an invalid base URL and skips every request", async () => {
    const svc = client({ baseUrl: "not a url", ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "base URL")).toMatch(/^fail base URL "not a url" is not a valid URL/);
    expect(statuses(report)).toMatchObject({
      server: "skip",
      credentials: "skip",
      clock: "skip",
      "OTLP endpoint": "skip",
    });
  });
});

describe("svc.doctor() on the tracing of the process", () => {
  it("fails when no tracer provider is registered", async () => {
    const server = await scripted();
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "tracer provider")).toMatch(
      /^fail no OpenTelemetry tracer provider is registered \| fix: register/,
    );
    expect(line(report, "span export")).toMatch(/^skip/);
  });

  it("fails a tracer provider without SvcSpanProcessor", async () => {
    const server = await scripted();
    const provider = new BasicTracerProvider();
    setSvcTracerProvider(provider);
    onTestFinished(() => setSvcTracerProvider(null));
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "tracer provider")).toMatch(
      /^fail a tracer provider records svc spans, but without SvcSpanProcessor/,
    );
  });

  it("warns when the sampler records no new trace", async () => {
    const server = await scripted();
    const provider = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SvcSpanProcessor({ baseUrl: server.url, ...KEYS }, {})],
    });
    setSvcTracerProvider(provider);
    onTestFinished(() => setSvcTracerProvider(null));
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "tracer provider")).toMatch(/^warn the tracer provider's sampler left a new trace unrecorded/);
    expect(report.ok).toBe(true);
  });

  it("ends its probe span: another processor gets it whole, and SvcSpanProcessor exports it to no one", async () => {
    const server = await scripted();
    const others = new InMemorySpanExporter();
    const processor = new SvcSpanProcessor({ baseUrl: server.url, ...KEYS, flushAt: 1 }, {});
    const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(others)] });
    setSvcTracerProvider(provider);
    onTestFinished(async () => {
      setSvcTracerProvider(null);
      await provider.shutdown();
    });
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "span export")).toMatch(/^pass/);
    await processor.forceFlush();

    expect(others.getFinishedSpans().map((span) => span.name)).toContain("svc doctor probe");
    const exported = server.seen
      .filter((r) => r.path === "/api/public/otel/v1/traces")
      .flatMap((r) => JSON.stringify(r.json ?? "").match(/svc doctor probe/g) ?? []);
    expect(exported).toEqual([]);
  });

  it("fails span export when the processor's filter leaves svc spans out", async () => {
    const server = await scripted();
    registerTracing(server.url, { shouldExportSpan: () => false });
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "span export")).toMatch(
      /^fail SvcSpanProcessor does not export spans of the svc tracer/,
    );
  });

  it("fails span export once the processor is shut down", async () => {
    const server = await scripted();
    const { processor } = registerTracing(server.url);
    await processor.shutdown();
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "tracer provider")).toMatch(/^pass/);
    expect(line(report, "span export")).toMatch(/^fail SvcSpanProcessor was shut down/);
  });

  it("fails span export when the processor has no keys", async () => {
    const server = await scripted();
    registerTracing(server.url, { publicKey: "", secretKey: "" });
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "span export")).toMatch(/^fail SvcSpanProcessor cannot send: no credentials/);
  });

  it("warns when the span processor sends with other keys than the client", async () => {
    const server = await scripted();
    registerTracing(server.url, { publicKey: "pk-other" });
    const svc = client({ baseUrl: server.url, ...KEYS });

    expect(line(await svc.doctor(), "tracer provider")).toMatch(/^warn .*its public key pk-other is not pk-test/);
  });

  it("warns when the span processor's last export failed", async () => {
    const server = await scripted({ otlp: undefined });
    server.reply(
      script([{ status: 400, json: { error: "bad span" } }], {
        matches: (req) => req.path === "/api/public/otel/v1/traces",
        other: (req) =>
          req.path === "/api/public/projects" ? { json: PROJECTS } : { json: { status: "OK", version: "4.60.0" } },
      }),
    );
    const { processor, provider } = registerTracing(server.url);
    provider.getTracer("svc-sdk").startSpan("refused").end();
    await processor.forceFlush();
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "span export")).toMatch(
      /^warn a span started now would be queued for export, but the last export failed at .*: HTTP 400 from/,
    );
    expect(line(report, "OTLP endpoint")).toMatch(/^pass/);
  });

  it("sends the test span with the span processor's compression", async () => {
    const server = await scripted();
    registerTracing(server.url, { compression: "none" });
    const svc = client({ baseUrl: server.url, ...KEYS });

    const report = await svc.doctor();

    expect(line(report, "OTLP endpoint")).toMatch(
      /^pass accepted a test span, http\/json, uncompressed \(as SvcSpanProcessor sends\)/,
    );
    const sent = server.seen.find((r) => r.path === "/api/public/otel/v1/traces");
    expect(sent?.headers["content-encoding"]).toBeUndefined();
  });

  it("sends the test span through the span processor's encoder, as OTLP/protobuf when it sends that", async () => {
    const server = await useDevServer();
    const keys = { publicKey: server.publicKey, secretKey: server.secretKey };
    registerTracing(server.url, { ...keys, protocol: "http/protobuf" });
    const svc = client({ baseUrl: server.url, ...keys });

    const report = await svc.doctor();

    expect(line(report, "OTLP endpoint")).toMatch(
      /^pass accepted a test span, http\/protobuf, gzip \(as SvcSpanProcessor sends\): trace [0-9a-f]{32}/,
    );
    const [span] = [...server.store.spans.values()];
    expect(span).toMatchObject({ name: "svc doctor test span", scopeName: "svc-sdk" });
    expect(span?.attributes).toMatchObject({ "svc.environment": "sdk-doctor", "svc.observation.type": "span" });
  });
});

describe("svc.doctor() and the app's OpenTelemetry defaults", () => {
  // Nothing listens on localhost:4318 where the tests run (they start their servers on ephemeral ports).
  it("warns when the app registered a meter provider whose metrics go to a default localhost:4318 that nothing answers", async () => {
    const server = await scripted();
    metrics.setGlobalMeterProvider(new MeterProvider());
    onTestFinished(() => metrics.disable());

    const report = await client({ baseUrl: server.url, ...KEYS }).doctor({ timeout: 2 });

    expect(line(report, "OTLP defaults")).toBe(
      "warn the app's OpenTelemetry SDK (NodeSDK's defaults) will export metrics to http://localhost:4318, where " +
        "nothing answers: each export fails and its shutdown() retries for seconds | fix: set " +
        "OTEL_METRICS_EXPORTER=none, or OTEL_EXPORTER_OTLP_ENDPOINT to the collector that should receive them",
    );
  });

  it("says nothing of the defaults when no meter provider is registered", async () => {
    const server = await scripted();

    const report = await client({ baseUrl: server.url, ...KEYS }).doctor({ timeout: 2 });

    expect(report.checks.map((c) => c.name)).not.toContain("OTLP defaults");
  });
});

describe("svc doctor, the command", () => {
  // Imported for its effect: the command runs as the bin does, with the arguments given.
  const CLI = 'await import("./packages/client/src/cli.ts");';

  it("prints the checks and exits 0 for a good set-up", async () => {
    const server = await useDevServer();
    const env = { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: server.secretKey };

    const result = await runChild(CLI, { args: ["doctor"], env });

    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split("\n")
        .map((l) => l.slice(0, 20).trim()),
    ).toEqual([
      expect.stringMatching(/^svc doctor: SDK/),
      "PASS  keys",
      "PASS  base URL",
      "PASS  server",
      "PASS  credentials",
      "PASS  clock",
      "PASS  OTLP endpoint",
      "No problem found: 6",
    ]);
    expect(result.stdout + result.stderr).not.toContain(server.secretKey);
  });

  it("sends the test span in the protocol the environment sets for span processors", async () => {
    const server = await useDevServer();
    const env = {
      SVC_BASE_URL: server.url,
      SVC_PUBLIC_KEY: server.publicKey,
      SVC_SECRET_KEY: server.secretKey,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
    };

    const result = await runChild(CLI, { args: ["doctor"], env });

    expect(result.stdout).toMatch(
      /^PASS {2}OTLP endpoint +accepted a test span, http\/protobuf \(OTEL_EXPORTER_OTLP_TRACES_PROTOCOL\), gzip \(default\)/m,
    );
    expect([...server.store.spans.values()].map((s) => s.name)).toEqual(["svc doctor test span"]);
  });

  it("warns when OTEL_TRACES_EXPORTER sends traces to a default localhost:4318 that nothing answers, unless an endpoint is set", async () => {
    const server = await useDevServer();
    const env = {
      SVC_BASE_URL: server.url,
      SVC_PUBLIC_KEY: server.publicKey,
      SVC_SECRET_KEY: server.secretKey,
      OTEL_TRACES_EXPORTER: "otlp",
    };

    const bare = await runChild(CLI, { args: ["doctor"], env });
    const withEndpoint = await runChild(CLI, {
      args: ["doctor"],
      env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector.internal:4318" },
    });

    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(
      /WARN {2}OTLP defaults +the app's OpenTelemetry SDK \(NodeSDK's defaults\) will export traces to http:\/\/localhost:4318/,
    );
    expect(bare.stdout).toContain("OTEL_TRACES_EXPORTER=none");
    expect(withEndpoint.stdout).not.toContain("OTLP defaults");
  });

  it("exits 1 with the fix when the server refuses the keys, and prints no SDK log line", async () => {
    const server = await useDevServer();
    const env = { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: "sk-not-the-one" };

    const result = await runChild(CLI, { args: ["doctor"], env });

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL {2}credentials {6}HTTP 401 from .*\. Fix: Check the public and secret keys/m);
    expect(result.stdout + result.stderr).not.toContain("sk-not-the-one");
    expect(result.stderr).toBe("");
  });

  it("exits 1 within twice its timeout against a server that never answers", async () => {
    const server = await faultServer(SILENT);
    const env = { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: "pk-a", SVC_SECRET_KEY: "sk-b" };

    const result = await runChild(CLI, { args: ["doctor", "--timeout", "0.5"], env, timeoutMs: 20_000 });

    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(2 * 500 + 5_000);
    expect(result.stdout).toMatch(/^FAIL {2}server {11}no answer within 500 ms/m);
  });

  it("reads the keys from --env-file and the address from --base-url", async () => {
    const server = await useDevServer();
    const file = join(mkdtempSync(join(tmpdir(), "svc-doctor-")), ".env");
    writeFileSync(file, `SVC_PUBLIC_KEY=${server.publicKey}\nSVC_SECRET_KEY=${server.secretKey}\n`);

    const result = await runChild(CLI, { args: ["doctor", "--env-file", file, "--base-url", server.url] });

    expect(result.stdout).toMatch(/^PASS {2}credentials/m);
    expect(result.stdout).toContain(`${server.url} (option)`);
    expect(result.code).toBe(0);
  });

  it("fails its runtime check and exits 1 on Node.js 20, which the SDK does not support", async () => {
    const node20 = "/usr/bin/node";
    expect(execFileSync(node20, ["--version"], { encoding: "utf8" })).toMatch(/^v20\./);
    const server = await useDevServer();
    const env = { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: server.secretKey };

    const [old, current] = await Promise.all([
      runChild(CLI, { args: ["doctor"], env, node: node20 }),
      runChild(CLI, { args: ["doctor"], env }),
    ]);

    expect(old.code).toBe(1);
    expect(old.stdout).toMatch(
      /^FAIL {2}runtime {10}Node\.js 20\.\d+\.\d+ is not supported: the SDK needs Node\.js 22 or later\. Fix: /m,
    );
    expect(old.stdout).toMatch(/^PASS {2}OTLP endpoint/m);
    expect(current.code).toBe(0);
    expect(current.stdout).not.toContain("runtime");
  });

  it("exits 2 with the usage on stderr for an unknown command or argument", async () => {
    const [command, argument] = await Promise.all([
      runChild(CLI, { args: ["cure"] }),
      runChild(CLI, { args: ["doctor", "--colour"] }),
    ]);

    expect(command).toMatchObject({ code: 2, stdout: "" });
    expect(command.stderr).toMatch(/^svc: unknown command "cure"\n\nUsage: npx @svc\/client doctor/);
    expect(argument.stderr).toMatch(/^svc: unknown argument "--colour"/);
  });
});
