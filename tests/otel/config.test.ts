import { LogLevel } from "@svc/core";
import { describe, expect, it } from "vitest";
import { resolveProcessorConfig } from "../../packages/otel/src/config.ts";
import { captureLogs } from "../support/logs.ts";

const keys = { publicKey: "pk", secretKey: "sk" };

describe("resolveProcessorConfig", () => {
  it("takes keys and base URL from options before the environment", () => {
    const env = { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env", SVC_BASE_URL: "http://env" };
    const config = resolveProcessorConfig({ publicKey: "pk", secretKey: "sk", baseUrl: "http://opt/" }, env);
    expect(config.baseUrl).toBe("http://opt");
    expect(config.headers.authorization).toBe(`Basic ${btoa("pk:sk")}`);
    expect(config.endpoint).toBe("http://opt/api/public/otel/v1/traces");
  });

  it("reads keys from the environment and prefers SVC_BASE_URL over SVC_BASEURL", () => {
    const env = {
      SVC_PUBLIC_KEY: "pk-env",
      SVC_SECRET_KEY: "sk-env",
      SVC_BASE_URL: "http://a",
      SVC_BASEURL: "http://b",
    };
    const config = resolveProcessorConfig({}, env);
    expect(config.baseUrl).toBe("http://a");
    expect(config.headers.authorization).toBe(`Basic ${btoa("pk-env:sk-env")}`);
    expect(resolveProcessorConfig({}, { SVC_BASEURL: "http://b" }).baseUrl).toBe("http://b");
  });

  it("warns once, naming both missing keys, builds a config, and will send nothing without credentials", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveProcessorConfig({}, {});
    expect(config.headers["x-svc-public-key"]).toBe("<missing>");
    expect(config.headers.authorization).toBeUndefined();
    expect(config.cannotSend).toMatch(/no credentials/);
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no publicKey and secretKey"),
    ]);
  });

  it("builds Basic auth and the SDK identification headers", () => {
    const { headers } = resolveProcessorConfig(keys, {});
    expect(headers).toMatchObject({
      authorization: `Basic ${Buffer.from("pk:sk").toString("base64")}`,
      "x-svc-sdk-name": "javascript",
      "x-svc-public-key": "pk",
      "x-svc-ingestion-version": "4",
      "content-type": "application/json",
    });
    expect(headers["x-svc-sdk-version"]).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("lets additionalHeaders replace a default header whatever its case", () => {
    const { headers } = resolveProcessorConfig({ ...keys, additionalHeaders: { "X-Svc-Ingestion-Version": "3" } }, {});
    const names = Object.keys(headers).filter((name) => name.toLowerCase() === "x-svc-ingestion-version");
    expect(names).toHaveLength(1);
    expect(headers["x-svc-ingestion-version"]).toBe("3");
  });

  it("adds headers from the OpenTelemetry header variables without replacing headers set in code", () => {
    const env = {
      OTEL_EXPORTER_OTLP_HEADERS: "x-proxy=a%20b,x-both=generic",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-both=traces,authorization=Bearer nope",
    };
    const { headers } = resolveProcessorConfig({ ...keys, additionalHeaders: { "X-Mine": "1" } }, env);
    expect(headers).toMatchObject({ "x-proxy": "a b", "x-both": "traces", "x-mine": "1" });
    expect(headers.authorization).toBe(`Basic ${Buffer.from("pk:sk").toString("base64")}`);
  });

  describe("compression order", () => {
    it("uses the compression option before every environment variable", () => {
      const env = { SVC_OTEL_COMPRESSION: "gzip", OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" };
      expect(resolveProcessorConfig({ ...keys, compression: "none" }, env).compression).toBe("none");
    });

    it("uses SVC_OTEL_COMPRESSION before the OpenTelemetry variables", () => {
      const env = { SVC_OTEL_COMPRESSION: "none", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip" };
      expect(resolveProcessorConfig(keys, env).compression).toBe("none");
    });

    it("uses OTEL_EXPORTER_OTLP_TRACES_COMPRESSION before OTEL_EXPORTER_OTLP_COMPRESSION", () => {
      const env = { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "none", OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" };
      expect(resolveProcessorConfig(keys, env).compression).toBe("none");
    });

    it("uses OTEL_EXPORTER_OTLP_COMPRESSION when nothing else is set", () => {
      expect(resolveProcessorConfig(keys, { OTEL_EXPORTER_OTLP_COMPRESSION: "none" }).compression).toBe("none");
    });

    it("defaults to gzip", () => {
      expect(resolveProcessorConfig(keys, {}).compression).toBe("gzip");
    });

    it("reads environment values case-insensitively", () => {
      expect(resolveProcessorConfig(keys, { SVC_OTEL_COMPRESSION: "NoNe" }).compression).toBe("none");
    });

    it("falls through an invalid SVC_OTEL_COMPRESSION to the next setting and logs one warning", () => {
      const logs = captureLogs(LogLevel.INFO);
      const env = { SVC_OTEL_COMPRESSION: "brotli", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "none" };
      expect(resolveProcessorConfig(keys, env).compression).toBe("none");
      const warnings = logs.filter((l) => l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain('SVC_OTEL_COMPRESSION="brotli"');
    });

    it("falls through invalid values down to the gzip default", () => {
      const logs = captureLogs(LogLevel.INFO);
      const env = { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "zstd", OTEL_EXPORTER_OTLP_COMPRESSION: "deflate" };
      expect(resolveProcessorConfig(keys, env).compression).toBe("gzip");
      expect(logs.filter((l) => l.level === "warn")).toHaveLength(2);
    });
  });

  it("reads flushAt, flushInterval and timeout from the environment in their units", () => {
    const env = { SVC_FLUSH_AT: "20", SVC_FLUSH_INTERVAL: "0.5", SVC_TIMEOUT: "3" };
    expect(resolveProcessorConfig(keys, env)).toMatchObject({ flushAt: 20, flushIntervalMs: 500, timeoutMs: 3000 });
  });

  it("ignores a malformed SVC_FLUSH_AT with a warning and keeps the default", () => {
    const logs = captureLogs(LogLevel.INFO);
    expect(resolveProcessorConfig(keys, { SVC_FLUSH_AT: "lots" }).flushAt).toBe(512);
    expect(logs.some((l) => l.level === "warn" && l.message.includes('SVC_FLUSH_AT="lots"'))).toBe(true);
  });

  it("has the documented defaults", () => {
    expect(resolveProcessorConfig(keys, {})).toMatchObject({
      exportMode: "batched",
      flushAt: 512,
      flushIntervalMs: 5000,
      timeoutMs: 10_000,
      flushTimeoutMs: 25_000,
      maxQueueSize: 100_000,
      maxQueueBytes: 100 * 1024 * 1024,
      maxRequestBytes: 4 * 1024 * 1024,
      maxConcurrentExports: 8,
      mediaUploadEnabled: true,
      environment: undefined,
      release: undefined,
    });
  });

  it("reads environment and release from SVC_TRACING_ENVIRONMENT and SVC_RELEASE", () => {
    const env = { SVC_TRACING_ENVIRONMENT: "staging", SVC_RELEASE: "r-1" };
    expect(resolveProcessorConfig(keys, env)).toMatchObject({ environment: "staging", release: "r-1" });
    expect(resolveProcessorConfig({ ...keys, environment: "prod" }, env).environment).toBe("prod");
  });

  it("turns media upload off with SVC_MEDIA_UPLOAD_ENABLED set to false or 0", () => {
    expect(resolveProcessorConfig(keys, { SVC_MEDIA_UPLOAD_ENABLED: "FALSE" }).mediaUploadEnabled).toBe(false);
    expect(resolveProcessorConfig(keys, { SVC_MEDIA_UPLOAD_ENABLED: "0" }).mediaUploadEnabled).toBe(false);
    expect(resolveProcessorConfig(keys, { SVC_MEDIA_UPLOAD_ENABLED: "yes" }).mediaUploadEnabled).toBe(true);
    expect(
      resolveProcessorConfig({ ...keys, mediaUploadEnabled: true }, { SVC_MEDIA_UPLOAD_ENABLED: "0" }),
    ).toMatchObject({ mediaUploadEnabled: true });
  });

  it("never throws over an option value: it warns, naming the value used instead", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveProcessorConfig({ ...keys, flushAt: -3, timeout: "10" as unknown as number }, {});

    expect(config).toMatchObject({ flushAt: 512, timeoutMs: 10_000 });
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] SvcSpanProcessor: option flushAt=-3 is not a whole number > 0; using 512 (default)",
      '[Svc SDK] SvcSpanProcessor: option timeout="10" is not a number > 0; using 10 (default)',
    ]);
  });

  it("takes 0 as not set for flushAt, flushInterval and timeout, as the previous major did", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveProcessorConfig(
      { ...keys, flushAt: 0, flushInterval: 0, timeout: 0 },
      { SVC_FLUSH_AT: "20" },
    );

    expect(config).toMatchObject({ flushAt: 20, flushIntervalMs: 5000, timeoutMs: 10_000 });
    expect(logs).toEqual([]);
  });

  it("falls through an invalid compression option to SVC_OTEL_COMPRESSION, with one warning", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveProcessorConfig(
      { ...keys, compression: "bogus" as "gzip" },
      { SVC_OTEL_COMPRESSION: "none" },
    );

    expect(config.compression).toBe("none");
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
    expect(resolveProcessorConfig(keys, env)).toMatchObject({
      flushAt: 64,
      flushIntervalMs: 250,
      maxQueueSize: 1000,
      flushTimeoutMs: 7000,
      timeoutMs: 2500,
    });
    expect(resolveProcessorConfig(keys, { ...env, SVC_FLUSH_AT: "8", SVC_TIMEOUT: "4" })).toMatchObject({
      flushAt: 8,
      timeoutMs: 4000,
    });
  });

  it("ignores options given as a typed array, a buffer or an array, with one warning, whatever their size", () => {
    const logs = captureLogs();
    for (const options of [new Uint8Array(2_000_000), Buffer.alloc(1_000_000), ["flushAt"]])
      expect(resolveProcessorConfig(options, {}).flushAt).toBe(512);
    expect(logs.filter((l) => l.message.includes("options must be an object"))).toHaveLength(3);
  });

  it("names the closest known option for a misspelt one", () => {
    const logs = captureLogs(LogLevel.INFO);
    resolveProcessorConfig({ ...keys, flushInteval: 1 } as never, {});
    expect(logs.map((l) => l.message)).toEqual([
      '[Svc SDK] SvcSpanProcessor: unknown option "flushInteval" is ignored; did you mean "flushInterval"?',
    ]);
  });

  it("reports a base URL that is not a valid http(s) URL, redacting credentials, and will send nothing", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveProcessorConfig({ ...keys, baseUrl: "htp://user:pw@x" }, {});

    expect(config.cannotSend).toMatch(/unsupported scheme htp/);
    expect(logs.map((l) => l.message).join("\n")).not.toContain("pw");
    expect(logs.filter((l) => l.level === "error")).toHaveLength(1);
  });

  it("logs one debug line with each resolved setting and where it came from, the secret key redacted", () => {
    const logs = captureLogs();
    resolveProcessorConfig(
      { publicKey: "pk-startup", secretKey: "sk-startup-secret", flushAt: 100, additionalHeaders: { "x-team": "t" } },
      { SVC_BASE_URL: "https://svc.example.com", OTEL_BSP_SCHEDULE_DELAY: "2500", SVC_OTEL_COMPRESSION: "NONE" },
    );

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
    resolveProcessorConfig(keys, {});
    expect(logs).toEqual([]);
  });
});
