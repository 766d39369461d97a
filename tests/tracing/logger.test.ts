import { resolveLogLevel } from "@svc/core";
import { getGlobalLogger, LogLevel } from "@svc/tracing";
import { describe, expect, it } from "vitest";
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
});
