import { configureGlobalLogger, LogLevel, type LogSink } from "@svc/core";
import { beforeEach } from "vitest";

// Set up for every test file (vitest.config.ts `setupFiles`): SDK log lines are held for the running test and
// printed only when it fails, so the output of a passing run carries no log lines. A test that expects lines
// captures them with captureLogs() and asserts them.

type Level = keyof LogSink;
const held: string[] = [];

function hold(level: Level) {
  return (message: unknown, ...args: unknown[]) => {
    held.push(`${level}: ${[message, ...args].map(String).join(" ")}`);
  };
}

/** The sink SDK lines go to in tests that do not capture them. */
export const heldSink: LogSink = { debug: hold("debug"), info: hold("info"), warn: hold("warn"), error: hold("error") };

/** Sends SDK lines to the held sink at the SDK's default level. */
export function holdLogs(): void {
  configureGlobalLogger({ level: LogLevel.INFO, sink: heldSink });
}

holdLogs();

beforeEach(({ onTestFailed }) => {
  held.length = 0;
  holdLogs();
  onTestFailed(() => {
    if (held.length > 0) console.error(`SDK log lines of the failed test:\n${held.join("\n")}`);
  });
});
