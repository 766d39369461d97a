import { type Connection, readEnv, type SpillSettings } from "@svc/core";
import { type DoctorOptions, runDoctor } from "./doctor.js";
import { hasAppMeterProvider } from "./otlp-defaults-check.js";
import type { DoctorReport } from "./report.js";
import { observeTracing } from "./tracing-checks.js";

/**
 * `svc.doctor()` of a client with this connection: probes the tracing of the process, then runs the checks.
 * Loaded when the doctor is first called, so an application that never calls it does not carry its code.
 */
export function runClientDoctor(
  connection: Connection,
  options: DoctorOptions,
  spill?: SpillSettings,
): Promise<DoctorReport> {
  const tracing = observeTracing();
  return runDoctor(connection, { ...options, env: readEnv(), tracing, appMeterProvider: hasAppMeterProvider(), spill });
}
