import { type Connection, readEnv, type SpillSettings } from "@svc/core";
import { type DoctorOptions, runDoctor } from "./doctor.js";
import { hasAppMeterProvider } from "./otlp-defaults-check.js";
import type { DoctorReport } from "./report.js";
import { observeTracing } from "./tracing-checks.js";

/** `svc.doctor()`: probes this process's tracing, then runs the checks; loaded on the doctor's first call. */
export function runClientDoctor(
  connection: Connection,
  options: DoctorOptions,
  spill?: SpillSettings,
): Promise<DoctorReport> {
  const tracing = observeTracing();
  return runDoctor(connection, { ...options, env: readEnv(), tracing, appMeterProvider: hasAppMeterProvider(), spill });
}
