import { type DiagLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { configureGlobalLogger, getGlobalLogger, LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { captureLogs } from "../support/logs.ts";

describe("logger", () => {
  it("reads SVC_LOG_LEVEL case-insensitively and lets SVC_DEBUG force debug", async () => {
    /** The lines a fresh process with `env` writes, one of each level. */
    const written = async (env: Record<string, string>) => {
      const { stdout, stderr } = await runChild(
        `import { getGlobalLogger } from "@svc/tracing";
        for (const level of ["debug", "info", "warn", "error"]) getGlobalLogger()[level](level);`,
        { env },
      );
      return [...`${stdout}${stderr}`.matchAll(/\[Svc SDK\] (\w+)/g)].map(([, level]) => level).sort();
    };

    expect(await written({ SVC_LOG_LEVEL: "warn" })).toEqual(["error", "warn"]);
    expect(await written({ SVC_LOG_LEVEL: "error", SVC_DEBUG: "TRUE" })).toEqual(["debug", "error", "info", "warn"]);
    expect(await written({ SVC_LOG_LEVEL: "loud" })).toEqual(["error", "info", "warn"]);
    expect(await written({})).toEqual(["error", "info", "warn"]);
  });

  it("prefixes lines and filters below the configured level", () => {
    const lines = captureLogs(LogLevel.WARN);
    getGlobalLogger().info("hidden");
    getGlobalLogger().warn("shown");
    expect(lines).toEqual([{ level: "warn", message: "[Svc SDK] shown" }]);
  });

  it("writes each line once: at the SDK level to the sink, below it to OpenTelemetry's diag logger when one is set", () => {
    const lines = captureLogs(LogLevel.INFO);
    const toDiag: string[] = [];
    const record = (level: string) => (message: string) => toDiag.push(`${level} ${message}`);
    const diagLogger: DiagLogger = {
      verbose: record("verbose"),
      debug: record("debug"),
      info: record("info"),
      warn: record("warn"),
      error: record("error"),
    };
    diag.setLogger(diagLogger, DiagLogLevel.ALL);
    onTestFinished(() => diag.disable());

    getGlobalLogger().warn("export failed");
    getGlobalLogger().debug("below the SDK level");

    expect(lines).toEqual([{ level: "warn", message: "[Svc SDK] export failed" }]);
    expect(toDiag.filter((line) => line.includes("[Svc SDK]"))).toEqual(["debug [Svc SDK] below the SDK level"]);
  });

  it("writes nothing to diag when the SDK level is none or forwarding is off", () => {
    const toDiag: string[] = [];
    const record = (message: string) => toDiag.push(message);
    diag.setLogger({ verbose: record, debug: record, info: record, warn: record, error: record }, DiagLogLevel.ALL);
    onTestFinished(() => diag.disable());

    const none = captureLogs(LogLevel.NONE);
    getGlobalLogger().error("silenced");
    configureGlobalLogger({ level: LogLevel.WARN, forwardToDiag: false });
    onTestFinished(() => configureGlobalLogger({ forwardToDiag: true }));
    getGlobalLogger().debug("not forwarded");

    expect(none).toEqual([]);
    expect(toDiag.filter((line) => line.includes("[Svc SDK]"))).toEqual([]);
  });
});

describe("a process with OTEL_LOG_LEVEL=debug and OpenTelemetry's console diag logger", () => {
  it("prints each SDK line once, at the SDK level and below it", async () => {
    const result = await runChild(
      `
      import { trace } from "@opentelemetry/api";
      import { NodeSDK } from "@opentelemetry/sdk-node";
      import { SvcSpanProcessor } from "@svc/otel";
      const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor({ flushAt: -1 })], instrumentations: [] });
      sdk.start();
      trace.getTracer("an-http-framework").startSpan("GET /").end(); // filtered out: a debug line
      await sdk.shutdown();
    `,
      {
        env: {
          OTEL_LOG_LEVEL: "debug",
          SVC_PUBLIC_KEY: "pk",
          SVC_SECRET_KEY: "sk",
          SVC_BASE_URL: "http://127.0.0.1:9",
          OTEL_TRACES_EXPORTER: "none",
          OTEL_METRICS_EXPORTER: "none",
          OTEL_LOGS_EXPORTER: "none",
        },
      },
    );

    const sdkLines = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.includes("[Svc SDK]"));
    expect(sdkLines.some((line) => line.includes("flushAt"))).toBe(true); // the warning, at the SDK level
    expect(sdkLines.some((line) => line.includes('"GET /"'))).toBe(true); // the debug line, through diag
    expect(new Set(sdkLines).size, sdkLines.join("\n")).toBe(sdkLines.length);
  });
});
