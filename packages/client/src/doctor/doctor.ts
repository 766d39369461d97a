import { describeError, type Env, SDK_VERSION, type SpillSettings } from "@svc/core";
import { checkOtlpDefaults } from "./otlp-defaults-check.js";
import { type DoctorCheck, type DoctorReport, doctorReport } from "./report.js";
import { checkClock, checkCredentials, checkOtlp, checkServer, type ServerSession } from "./server-checks.js";
import { checkBaseUrl, checkKeys, type DoctorTarget } from "./setup-checks.js";
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
 * server, credentials, clock, OTLP endpoint and, with `tracing` (what `observeTracing()` saw in this process), the
 * tracer provider and span export; with `otlpDefaults`, whether the app's OpenTelemetry SDK exports to a default
 * `localhost:4318` that nothing answers; with `spill`, the spill directory (writable, its size, the batches waiting
 * and the oldest). A check that an earlier failure rules out is skipped. Every request has a time limit and the run a
 * deadline, whatever the server does. Never rejects.
 */
export async function runDoctor(
  target: DoctorTarget,
  {
    timeout,
    tracing,
    otlpDefaults,
    spill,
  }: DoctorOptions & {
    tracing?: TracingObservation;
    otlpDefaults?: { env: Env; appMeterProvider: boolean };
    spill?: SpillSettings | undefined;
  },
): Promise<DoctorReport> {
  const seconds = typeof timeout === "number" && timeout > 0 ? timeout : DEFAULT_DOCTOR_TIMEOUT_SECONDS;
  const session: ServerSession = { target, timeoutMs: seconds * 1000, deadline: Date.now() + 2 * seconds * 1000 };
  const checks: DoctorCheck[] = [];
  const unsupported = checkRuntime();
  if (unsupported) checks.push(unsupported);
  const keys = await guarded("keys", () => checkKeys(target));
  checks.push(keys, await guarded("base URL", () => checkBaseUrl(target)));
  const keysUsable = keys.status !== "fail";
  const urlUsable = target.baseUrlProblem === undefined;
  checks.push(
    urlUsable ? await guarded("server", () => checkServer(session)) : skipped("server", "the base URL is not usable"),
  );
  const answered = session.answered === true;
  const why = !urlUsable ? "the base URL is not usable" : !answered ? "the server did not answer" : "no usable keys";
  const talk = answered && keysUsable;
  const credentials = talk
    ? await guarded("credentials", () => checkCredentials(session))
    : skipped("credentials", why);
  checks.push(credentials);
  checks.push(answered ? await guarded("clock", () => checkClock(session)) : skipped("clock", why));
  const accepted = talk && credentials.status !== "fail";
  checks.push(
    accepted
      ? await guarded("OTLP endpoint", () => checkOtlp(session))
      : skipped("OTLP endpoint", talk ? "the credentials were not accepted" : why),
  );
  if (tracing) {
    const found = await guarded("tracer provider", () => checkTracing(target, tracing));
    checks.push(...(Array.isArray(found) ? found : [found]));
  }
  if (otlpDefaults) {
    const { env, appMeterProvider } = otlpDefaults;
    const found = await guarded("OTLP defaults", async () => (await checkOtlpDefaults(env, appMeterProvider)) ?? []);
    checks.push(...(Array.isArray(found) ? found : [found]));
  }
  if (spill) checks.push(await guarded("spill directory", () => checkSpill(spill)));
  return doctorReport(`svc doctor: SDK ${SDK_VERSION}, ${runtime()}`, checks);
}

/** Runs a check; one that throws (a hostile tracer provider...) fails with what it threw. */
async function guarded<T extends DoctorCheck | DoctorCheck[]>(
  name: string,
  check: () => T | Promise<T>,
): Promise<T | DoctorCheck> {
  try {
    return await check();
  } catch (error) {
    return { name, status: "fail", detail: `the check itself failed: ${describeError(error)}` };
  }
}

function skipped(name: string, why: string): DoctorCheck {
  return { name, status: "skip", detail: `skipped: ${why}` };
}

/** Oldest major version of Node.js the SDK supports (the `engines` field of its packages). */
const MIN_NODE_MAJOR = 22;

/**
 * The check `runtime`, only when it fails: Node.js older than the SDK supports. Bun and Deno, which report a Node.js
 * version of their own, and runtimes without Node.js are not judged by it.
 */
function checkRuntime(): DoctorCheck | undefined {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process?.versions;
  const node = versions?.node;
  if (node === undefined || versions?.bun !== undefined || versions?.deno !== undefined) return undefined;
  if (Number(node.split(".")[0]) >= MIN_NODE_MAJOR) return undefined;
  return {
    name: "runtime",
    status: "fail",
    detail: `Node.js ${node} is not supported: the SDK needs Node.js ${MIN_NODE_MAJOR} or later`,
    fix: `Run the app (and this command) with Node.js ${MIN_NODE_MAJOR} or later.`,
  };
}

function runtime(): string {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return node ? `Node.js ${node}` : "a runtime without Node.js";
}
