import { configureGlobalLogger, LogLevel, type LogSink } from "@svc/tracing";
import { onTestFinished } from "vitest";
import { holdLogs } from "./held-logs.ts";

export interface CapturedLog {
  level: "debug" | "info" | "warn" | "error";
  message: string;
}

/** Routes SDK log lines into an array for the current test, at the given level. */
export function captureLogs(level: LogLevel = LogLevel.DEBUG): CapturedLog[] {
  const lines: CapturedLog[] = [];
  const push =
    (kind: CapturedLog["level"]) =>
    (message: unknown, ...args: unknown[]) => {
      lines.push({ level: kind, message: [message, ...args].map(String).join(" ") });
    };
  const sink: LogSink = { debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") };
  configureGlobalLogger({ level, sink });
  onTestFinished(holdLogs);
  return lines;
}
