import { resolveProcessorConfig } from "@svc/otel";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";

const keys = { publicKey: "pk", secretKey: "sk" };

describe("resolveProcessorConfig", () => {
  it("takes keys and base URL from options before the environment", () => {
    const env = { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env", SVC_BASE_URL: "http://env" };
    const config = resolveProcessorConfig({ publicKey: "pk", secretKey: "sk", baseUrl: "http://opt/" }, env);
    expect(config).toMatchObject({ publicKey: "pk", secretKey: "sk", baseUrl: "http://opt" });
    expect(config.endpoint).toBe("http://opt/api/public/otel/v1/traces");
  });

  it("reads keys from the environment and prefers SVC_BASE_URL over SVC_BASEURL", () => {
    const env = {
      SVC_PUBLIC_KEY: "pk-env",
      SVC_SECRET_KEY: "sk-env",
      SVC_BASE_URL: "http://a",
      SVC_BASEURL: "http://b",
    };
    expect(resolveProcessorConfig({}, env)).toMatchObject({
      publicKey: "pk-env",
      secretKey: "sk-env",
      baseUrl: "http://a",
    });
    expect(resolveProcessorConfig({}, { SVC_BASEURL: "http://b" }).baseUrl).toBe("http://b");
  });

  it("warns once per missing key and still builds a config", () => {
    const logs = captureLogs();
    const config = resolveProcessorConfig({}, {});
    expect(config.headers["x-svc-public-key"]).toBe("<missing>");
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no public key"),
      expect.stringContaining("no secret key"),
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
      const logs = captureLogs();
      const env = { SVC_OTEL_COMPRESSION: "brotli", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "none" };
      expect(resolveProcessorConfig(keys, env).compression).toBe("none");
      const warnings = logs.filter((l) => l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain('SVC_OTEL_COMPRESSION="brotli"');
    });

    it("falls through invalid values down to the gzip default", () => {
      const logs = captureLogs();
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
    const logs = captureLogs();
    expect(resolveProcessorConfig(keys, { SVC_FLUSH_AT: "lots" }).flushAt).toBe(512);
    expect(logs.some((l) => l.level === "warn" && l.message.includes('SVC_FLUSH_AT="lots"'))).toBe(true);
  });

  it("has the documented defaults", () => {
    expect(resolveProcessorConfig(keys, {})).toMatchObject({
      exportMode: "batched",
      flushAt: 512,
      flushIntervalMs: 5000,
      timeoutMs: 10_000,
      maxQueueSize: 100_000,
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

  it("throws a TypeError naming an option of the wrong type", () => {
    expect(() => resolveProcessorConfig({ ...keys, flushAt: 0 }, {})).toThrow(/option flushAt/);
    expect(() => resolveProcessorConfig({ ...keys, compression: "br" as "gzip" }, {})).toThrow(/option compression/);
  });
});
