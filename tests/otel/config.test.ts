import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { LogLevel } from "@svc/core";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer } from "../support/http-server.ts";
import { type CapturedLog, captureLogs } from "../support/logs.ts";
import { otlpRequests } from "../support/otel.ts";

// How SvcSpanProcessor reads its options and the environment: the settings it says it was created with (its start-up
// line at debug level names each value and where it came from), the lines it logs, and the requests it sends.

type Env = Record<string, string>;
const keys = { publicKey: "pk", secretKey: "sk" };

/**
 * Makes a processor from these options and environment, and gives each setting of its start-up line as
 * `value (source)`, and the other lines it logged.
 */
function made(params: unknown, env: Env): { settings: Record<string, string>; logs: CapturedLog[] } {
  const captured = captureLogs();
  const processor = new SvcSpanProcessor(params as SvcSpanProcessorParams, env);
  onTestFinished(() => processor.shutdown());
  const lines = captured.filter((l) => l.level === "debug" && l.message.includes("SvcSpanProcessor: created with "));
  expect(lines).toHaveLength(1);
  const settings: Record<string, string> = {};
  for (const [, name, value] of (lines[0]?.message ?? "").matchAll(/(\w+)=(.*?(?: \([^()]+\)))(?:, |$)/g))
    settings[name as string] = value as string;
  return { settings, logs: captured.filter((l) => l.level !== "debug") };
}

/** The settings of a processor made from these options and environment (see {@link made}). */
const settingsOf = (params: unknown, env: Env) => made(params, env).settings;

/** Ends one span on a processor pointed at a loopback server and gives the server's export requests. */
async function exportOne(params: SvcSpanProcessorParams, env: Env = {}) {
  const server = await startServer();
  onTestFinished(server.close);
  const processor = new SvcSpanProcessor({ baseUrl: server.url, ...params }, env);
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  provider.getTracer("svc-sdk").startSpan("one").end();
  await processor.forceFlush();
  return { server, requests: otlpRequests(server) };
}

const basic = (publicKey: string, secretKey: string) =>
  `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}`;

describe("SvcSpanProcessor's settings", () => {
  it("takes keys and base URL from options before the environment", async () => {
    const env = { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env", SVC_BASE_URL: "http://127.0.0.1:9" };
    const { server } = await exportOne(keys, env);
    await exportOne({ ...keys, baseUrl: `${server.url}/` }, env);

    const requests = otlpRequests(server);
    expect(requests.map((r) => r.path)).toEqual(["/api/public/otel/v1/traces", "/api/public/otel/v1/traces"]);
    expect(requests.map((r) => r.headers.authorization)).toEqual([basic("pk", "sk"), basic("pk", "sk")]);
    expect(settingsOf({ ...keys, baseUrl: "http://opt/" }, { SVC_BASE_URL: "http://env" }).baseUrl).toBe(
      '"http://opt" (option)',
    );
  });

  it("reads keys from the environment and prefers SVC_BASE_URL over SVC_BASEURL", async () => {
    const env = {
      SVC_PUBLIC_KEY: "pk-env",
      SVC_SECRET_KEY: "sk-env",
      SVC_BASE_URL: "http://a",
      SVC_BASEURL: "http://b",
    };
    expect(settingsOf({}, env)).toMatchObject({
      baseUrl: '"http://a" (SVC_BASE_URL)',
      publicKey: '"pk-env" (SVC_PUBLIC_KEY)',
    });
    expect(settingsOf({}, { SVC_BASEURL: "http://b" }).baseUrl).toBe('"http://b" (SVC_BASEURL)');
    const { requests } = await exportOne({}, { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env" });
    expect(requests[0]?.headers.authorization).toBe(basic("pk-env", "sk-env"));
  });

  it("warns once, naming both missing keys, and sends nothing without credentials", async () => {
    const { logs } = made({}, {});
    const { requests } = await exportOne({}, {});

    expect(requests).toEqual([]);
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no publicKey and secretKey"),
    ]);
  });

  it("sends Basic auth and the SDK identification headers", async () => {
    const { requests } = await exportOne(keys);

    expect(requests[0]?.headers).toMatchObject({
      authorization: basic("pk", "sk"),
      "x-svc-sdk-name": "javascript",
      "x-svc-public-key": "pk",
      "x-svc-ingestion-version": "4",
      "content-type": "application/json",
    });
    expect(requests[0]?.headers["x-svc-sdk-version"]).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("lets additionalHeaders replace a default header whatever its case", async () => {
    const { requests } = await exportOne({ ...keys, additionalHeaders: { "X-Svc-Ingestion-Version": "3" } });

    // Two headers of one name would reach the server joined ("4, 3").
    expect(requests[0]?.headers["x-svc-ingestion-version"]).toBe("3");
  });

  it("adds headers from the OpenTelemetry header variables without replacing headers set in code", async () => {
    const env = {
      OTEL_EXPORTER_OTLP_HEADERS: "x-proxy=a%20b,x-both=generic",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-both=traces,authorization=Bearer nope",
    };
    const { requests } = await exportOne({ ...keys, additionalHeaders: { "X-Mine": "1" } }, env);

    expect(requests[0]?.headers).toMatchObject({ "x-proxy": "a b", "x-both": "traces", "x-mine": "1" });
    expect(requests[0]?.headers.authorization).toBe(basic("pk", "sk"));
  });

  describe("compression order", () => {
    const compression = (params: unknown, env: Env) => settingsOf(params, env).compression;

    it("uses the compression option before every environment variable", () => {
      const env = { SVC_OTEL_COMPRESSION: "gzip", OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" };
      expect(compression({ ...keys, compression: "none" }, env)).toBe('"none" (option)');
    });

    it("uses SVC_OTEL_COMPRESSION before the OpenTelemetry variables", () => {
      const env = { SVC_OTEL_COMPRESSION: "none", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip" };
      expect(compression(keys, env)).toBe('"none" (SVC_OTEL_COMPRESSION)');
    });

    it("uses OTEL_EXPORTER_OTLP_TRACES_COMPRESSION before OTEL_EXPORTER_OTLP_COMPRESSION", () => {
      const env = { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "none", OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" };
      expect(compression(keys, env)).toBe('"none" (OTEL_EXPORTER_OTLP_TRACES_COMPRESSION)');
    });

    it("uses OTEL_EXPORTER_OTLP_COMPRESSION when nothing else is set", () => {
      expect(compression(keys, { OTEL_EXPORTER_OTLP_COMPRESSION: "none" })).toBe(
        '"none" (OTEL_EXPORTER_OTLP_COMPRESSION)',
      );
    });

    it("defaults to gzip", () => {
      expect(compression(keys, {})).toBe('"gzip" (default)');
    });

    it("reads environment values case-insensitively", () => {
      expect(compression(keys, { SVC_OTEL_COMPRESSION: "NoNe" })).toBe('"none" (SVC_OTEL_COMPRESSION)');
    });

    it("falls through an invalid SVC_OTEL_COMPRESSION to the next setting and logs one warning", () => {
      const env = { SVC_OTEL_COMPRESSION: "brotli", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "none" };
      const { settings, logs } = made(keys, env);
      expect(settings.compression).toBe('"none" (OTEL_EXPORTER_OTLP_TRACES_COMPRESSION)');
      const warnings = logs.filter((l) => l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain('SVC_OTEL_COMPRESSION="brotli"');
    });

    it("falls through invalid values down to the gzip default", () => {
      const env = { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "zstd", OTEL_EXPORTER_OTLP_COMPRESSION: "deflate" };
      const { settings, logs } = made(keys, env);
      expect(settings.compression).toBe('"gzip" (default)');
      expect(logs.filter((l) => l.level === "warn")).toHaveLength(2);
    });
  });

  it("reads flushAt, flushInterval and timeout from the environment in their units", () => {
    const env = { SVC_FLUSH_AT: "20", SVC_FLUSH_INTERVAL: "0.5", SVC_TIMEOUT: "3" };
    expect(settingsOf(keys, env)).toMatchObject({
      flushAt: "20 (SVC_FLUSH_AT)",
      flushInterval: "0.5 (SVC_FLUSH_INTERVAL)",
      timeout: "3 (SVC_TIMEOUT)",
    });
  });

  it("ignores a malformed SVC_FLUSH_AT with a warning and keeps the default", () => {
    const { settings, logs } = made(keys, { SVC_FLUSH_AT: "lots" });
    expect(settings.flushAt).toBe("512 (default)");
    expect(logs.some((l) => l.level === "warn" && l.message.includes('SVC_FLUSH_AT="lots"'))).toBe(true);
  });

  it("has the documented defaults", () => {
    expect(settingsOf(keys, {})).toMatchObject({
      exportMode: '"batched" (default)',
      flushAt: "512 (default)",
      flushInterval: "5 (default)",
      timeout: "10 (default)",
      flushTimeout: "25 (default)",
      maxQueueSize: "100000 (default)",
      maxQueueBytes: `${100 * 1024 * 1024} (default)`,
      maxRequestBytes: `${4 * 1024 * 1024} (default)`,
      maxConcurrentExports: "8 (default)",
      mediaUploadEnabled: "true (default)",
      environment: "none (default)",
      release: "none (default)",
    });
  });

  it("reads environment and release from SVC_TRACING_ENVIRONMENT and SVC_RELEASE", () => {
    const env = { SVC_TRACING_ENVIRONMENT: "staging", SVC_RELEASE: "r-1" };
    expect(settingsOf(keys, env)).toMatchObject({
      environment: '"staging" (SVC_TRACING_ENVIRONMENT)',
      release: '"r-1" (SVC_RELEASE)',
    });
    expect(settingsOf({ ...keys, environment: "prod" }, env).environment).toBe('"prod" (option)');
  });

  it("turns media upload off with SVC_MEDIA_UPLOAD_ENABLED set to false or 0", () => {
    const upload = (params: unknown, value: string) =>
      settingsOf(params, { SVC_MEDIA_UPLOAD_ENABLED: value }).mediaUploadEnabled;
    expect(upload(keys, "FALSE")).toBe("false (SVC_MEDIA_UPLOAD_ENABLED)");
    expect(upload(keys, "0")).toBe("false (SVC_MEDIA_UPLOAD_ENABLED)");
    expect(upload(keys, "yes")).toBe("true (SVC_MEDIA_UPLOAD_ENABLED)");
    expect(upload({ ...keys, mediaUploadEnabled: true }, "0")).toBe("true (option)");
  });

  it("never throws over an option value: it warns, naming the value used instead", () => {
    const { settings, logs } = made({ ...keys, flushAt: -3, timeout: "10" }, {});

    expect(settings).toMatchObject({ flushAt: "512 (default)", timeout: "10 (default)" });
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] SvcSpanProcessor: option flushAt=-3 is not a whole number > 0; using 512 (default)",
      '[Svc SDK] SvcSpanProcessor: option timeout="10" is not a number > 0; using 10 (default)',
    ]);
  });

  it("takes 0 as not set for flushAt, flushInterval and timeout, as the previous major did", () => {
    const { settings, logs } = made({ ...keys, flushAt: 0, flushInterval: 0, timeout: 0 }, { SVC_FLUSH_AT: "20" });

    expect(settings).toMatchObject({
      flushAt: "20 (SVC_FLUSH_AT)",
      flushInterval: "5 (default)",
      timeout: "10 (default)",
    });
    expect(logs).toEqual([]);
  });

  it("falls through an invalid compression option to SVC_OTEL_COMPRESSION, with one warning", () => {
    const { settings, logs } = made({ ...keys, compression: "bogus" }, { SVC_OTEL_COMPRESSION: "none" });

    expect(settings.compression).toBe('"none" (SVC_OTEL_COMPRESSION)');
    expect(logs.map((l) => l.message)).toEqual([
      '[Svc SDK] SvcSpanProcessor: option compression="bogus" is not one of "gzip", "none"; using "none" (SVC_OTEL_COMPRESSION)',
    ]);
  });

  it("reads the OpenTelemetry batch variables below the svc ones, converting milliseconds", () => {
    const env = {
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64",
      OTEL_BSP_SCHEDULE_DELAY: "250",
      OTEL_BSP_MAX_QUEUE_SIZE: "1000",
      OTEL_BSP_EXPORT_TIMEOUT: "7000",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
    };
    expect(settingsOf(keys, env)).toMatchObject({
      flushAt: "64 (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)",
      flushInterval: "0.25 (OTEL_BSP_SCHEDULE_DELAY)",
      maxQueueSize: "1000 (OTEL_BSP_MAX_QUEUE_SIZE)",
      flushTimeout: "7 (OTEL_BSP_EXPORT_TIMEOUT)",
      timeout: "2.5 (OTEL_EXPORTER_OTLP_TIMEOUT)",
    });
    expect(settingsOf(keys, { ...env, SVC_FLUSH_AT: "8", SVC_TIMEOUT: "4" })).toMatchObject({
      flushAt: "8 (SVC_FLUSH_AT)",
      timeout: "4 (SVC_TIMEOUT)",
    });
  });

  it("ignores options given as a typed array, a buffer or an array, with one warning, whatever their size", () => {
    const logs: CapturedLog[] = [];
    for (const options of [new Uint8Array(2_000_000), Buffer.alloc(1_000_000), ["flushAt"]]) {
      const processor = made(options, {});
      expect(processor.settings.flushAt).toBe("512 (default)");
      logs.push(...processor.logs);
    }
    expect(logs.filter((l) => l.message.includes("options must be an object"))).toHaveLength(3);
  });

  it("names the closest known option for a misspelt one", () => {
    const { logs } = made({ ...keys, flushInteval: 1 }, {});
    expect(logs.map((l) => l.message)).toEqual([
      '[Svc SDK] SvcSpanProcessor: unknown option "flushInteval" is ignored; did you mean "flushInterval"?',
    ]);
  });

  it("reports a base URL that is not a valid http(s) URL, redacting credentials, and will send nothing", () => {
    const { logs } = made({ ...keys, baseUrl: "htp://user:pw@x" }, {});

    const errors = logs.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/unsupported scheme htp/);
    expect(logs.map((l) => l.message).join("\n")).not.toContain("pw");
  });

  it("logs one debug line with each resolved setting and where it came from, the secret key redacted", () => {
    const logs = captureLogs();
    const processor = new SvcSpanProcessor(
      { publicKey: "pk-startup", secretKey: "sk-startup-secret", flushAt: 100, additionalHeaders: { "x-team": "t" } },
      { SVC_BASE_URL: "https://svc.example.com", OTEL_BSP_SCHEDULE_DELAY: "2500", SVC_OTEL_COMPRESSION: "NONE" },
    );
    onTestFinished(() => processor.shutdown());

    const debug = logs.filter((l) => l.level === "debug").map((l) => l.message);
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatch(/^\[Svc SDK\] SvcSpanProcessor: created with /);
    for (const part of [
      'baseUrl="https://svc.example.com" (SVC_BASE_URL)',
      'publicKey="pk-startup" (option)',
      "secretKey=[redacted] (option)",
      "flushAt=100 (option)",
      "flushInterval=2.5 (OTEL_BSP_SCHEDULE_DELAY)",
      'compression="none" (SVC_OTEL_COMPRESSION)',
      "timeout=10 (default)",
      "additionalHeaders={x-team} (option)",
      "mask=none (default)",
    ])
      expect(debug[0]).toContain(part);
    expect(debug[0]).not.toContain("sk-startup-secret");
  });

  it("writes no start-up line below debug level", () => {
    const logs = captureLogs(LogLevel.INFO);
    const processor = new SvcSpanProcessor(keys, {});
    onTestFinished(() => processor.shutdown());
    expect(logs).toEqual([]);
  });
});
