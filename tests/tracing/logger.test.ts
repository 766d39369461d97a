import { type DiagLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { resolveLogLevel } from "@svc/core";
import { getGlobalLogger, LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { captureLogs } from "../support/logs.ts";

describe("logger", () => {
  it("reads SVC_LOG_LEVEL case-insensitively and lets SVC_DEBUG force debug", () => {
    expect(resolveLogLevel({ SVC_LOG_LEVEL: "warn" })).toBe(LogLevel.WARN);
    expect(resolveLogLevel({ SVC_LOG_LEVEL: "error", SVC_DEBUG: "TRUE" })).toBe(LogLevel.DEBUG);
    expect(resolveLogLevel({ SVC_LOG_LEVEL: "loud" })).toBe(LogLevel.INFO);
    expect(resolveLogLevel({})).toBe(LogLevel.INFO);
  });

  it("prefixes lines and filters below the configured level", () => {
    const lines = captureLogs(LogLevel.WARN);
    getGlobalLogger().info("hidden");
    getGlobalLogger().warn("shown");
    expect(lines).toEqual([{ level: "warn", message: "[Svc SDK] shown" }]);
  });

  it("also writes SDK lines to OpenTelemetry's diag logger once the application sets one", () => {
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

    expect(toDiag.filter((line) => line.includes("[Svc SDK]"))).toEqual(["warn [Svc SDK] export failed"]);
    expect(lines).toEqual([{ level: "warn", message: "[Svc SDK] export failed" }]);
  });
});
