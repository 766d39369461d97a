import { type Connection, describeError, type Env, SDK_VERSION, type SpillSettings } from "@svc/core";
import { checkOtlpDefaults } from "./otlp-defaults-check.js";
import { type DoctorCheck, type DoctorReport, doctorReport } from "./report.js";
import { checkClock, checkCredentials, checkOtlp, checkServer, type ServerSession } from "./server-checks.js";
import { checkBaseUrl, checkKeys, doctorTarget } from "./setup-checks.js";
import { checkSpill } from "./spill-check.js";
import { checkTracing, type TracingObservation } from "./tracing-checks.js";

/** Options of `svc.doctor()` and `svc doctor`. */
export interface DoctorOptions {
  /** Longest wait for each request to the server, in seconds; the whole run ends within twice as long. @defaultValue 10 */
  timeout?: number;
}

/** Default time limit of each request of the doctor, in seconds. */
export const DEFAULT_DOCTOR_TIMEOUT_SECONDS = 10;

/**
 * Runs the checks in order: the runtime (a line only when Node.js is older than the SDK supports), keys, base URL,
 * server, credentials, clock, OTLP endpoint; with `tracing` (what `observeTracing()` saw in this process), the tracer
 * provider and span export; whether the app's OpenTelemetry SDK exports to a default `localhost:4318` that nothing
 * answers (`appMeterProvider`: one is registered); with `spill`, the spill directory. A check that an earlier failure
 * rules out is skipped. Every request has a time limit and the run a deadline, whatever the server does. Never rejects.
 */
export async function runDoctor(
  connection: Connection,
  {
    timeout,
    env,
    tracing,
    appMeterProvider = false,
    spill,
  }: DoctorOptions & { env: Env; tracing?: TracingObservation; appMeterProvider?: boolean; spill?: SpillSettings },
): Promise<DoctorReport> {
  const target = doctorTarget(connection, env, tracing?.exporter);
  const seconds = typeof timeout === "number" && timeout > 0 ? timeout : DEFAULT_DOCTOR_TIMEOUT_SECONDS;
  const session: ServerSession = { target, timeoutMs: seconds * 1000, deadline: Date.now() + 2 * seconds * 1000 };
  const checks: DoctorCheck[] = [];
  /** Runs a check, or skips it with the reason given; one that throws (a hostile tracer provider...) fails. */
  const run = async (name: string, check: () => Found | Promise<Found>, skipBecause?: string) => {
    let found: Found;
    if (skipBecause !== undefined) found = { name, status: "skip", detail: `skipped: ${skipBecause}` };
    else
      try {
        found = await check();
      } catch (error) {
        found = { name, status: "fail", detail: `the check itself failed: ${describeError(error)}` };
      }
    const list = found === undefined ? [] : Array.isArray(found) ? found : [found];
    checks.push(...list);
    return list[0];
  };
  await run("runtime", checkRuntime);
  const keys = await run("keys", () => checkKeys(target));
  await run("base URL", () => checkBaseUrl(target));
  const urlUsable = target.baseUrlProblem === undefined;
  await run("server", () => checkServer(session), urlUsable ? undefined : "the base URL is not usable");
  const answered = session.answered === true;
  const why = !urlUsable ? "the base URL is not usable" : !answered ? "the server did not answer" : "no usable keys";
  const talk = answered && keys?.status !== "fail";
  const credentials = await run("credentials", () => checkCredentials(session), talk ? undefined : why);
  await run("clock", () => checkClock(session), answered ? undefined : why);
  const otlpSkip = talk ? "the credentials were not accepted" : why;
  await run("OTLP endpoint", () => checkOtlp(session), talk && credentials?.status !== "fail" ? undefined : otlpSkip);
  if (tracing) await run("tracer provider", () => checkTracing(target, tracing));
  await run("OTLP defaults", () => checkOtlpDefaults(env, appMeterProvider));
  if (spill) await run("spill directory", () => checkSpill(spill));
  return doctorReport(`svc doctor: SDK ${SDK_VERSION}, ${runtime()}`, checks);
}

type Found = DoctorCheck | DoctorCheck[] | undefined;

/** Oldest major version of Node.js the SDK supports (the `engines` field of its packages). */
const MIN_NODE_MAJOR = 22;

/** The Node.js version of this runtime, and whether it is Bun or Deno (which report a Node.js version of their own). */
function nodeVersion(): { node: string | undefined; other: boolean } {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process?.versions;
  return { node: versions?.node, other: versions?.bun !== undefined || versions?.deno !== undefined };
}

/** The check `runtime`, only when it fails: Node.js older than the SDK supports. */
function checkRuntime(): DoctorCheck | undefined {
  const { node, other } = nodeVersion();
  if (node === undefined || other || Number(node.split(".")[0]) >= MIN_NODE_MAJOR) return undefined;
  return {
    name: "runtime",
    status: "fail",
    detail: `Node.js ${node} is not supported: the SDK needs Node.js ${MIN_NODE_MAJOR} or later`,
    fix: `Run the app (and this command) with Node.js ${MIN_NODE_MAJOR} or later.`,
  };
}

function runtime(): string {
  const { node } = nodeVersion();
  return node ? `Node.js ${node}` : "a runtime without Node.js";
}
