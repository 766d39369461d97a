#!/usr/bin/env node
// `svc`, the command of @svc/client: `npx @svc/client doctor` checks the set-up of the SDK against the server.
import {
  configureGlobalLogger,
  LogLevel,
  readEnv,
  resolveConnection,
  resolveOptions,
  SDK_VERSION,
  SPILL_SPECS,
  spillSettings,
} from "@svc/core";
import { DEFAULT_DOCTOR_TIMEOUT_SECONDS, runDoctor } from "./doctor/doctor.js";

const USAGE = `Usage: npx @svc/client doctor [--base-url <url>] [--timeout <seconds>] [--env-file <path>] [--verbose]

Checks the set-up of the svc SDK, one line per check with what to do when it fails: the keys (SVC_PUBLIC_KEY,
SVC_SECRET_KEY), the base URL (SVC_BASE_URL), that the server answers and accepts the keys, the clock, and that
the OTLP endpoint accepts a test span (compression from SVC_OTEL_COMPRESSION and the OTEL_* variables), and the
spill directory when SVC_SPILL_DIR names one (its size and the oldest batch waiting in it).
Exits with 1 when a check fails.

  --base-url <url>      the server address, instead of SVC_BASE_URL
  --timeout <seconds>   longest wait for each request (default ${DEFAULT_DOCTOR_TIMEOUT_SECONDS}); the run ends within twice as long
  --env-file <path>     read environment variables from a .env file first
  --verbose             also print the SDK's own log lines
  --version             print the SDK version`;

interface Args {
  command: string | undefined;
  baseUrl?: string;
  timeout?: number;
  envFile?: string;
  verbose: boolean;
  help: boolean;
  version: boolean;
}

/** The arguments, or what is wrong with them. */
function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { command: undefined, verbose: false, help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = () => {
      const next = argv[++i];
      if (next === undefined || next.startsWith("--")) throw new Error(`${arg} needs a value`);
      return next;
    };
    try {
      if (arg === "--help" || arg === "-h") args.help = true;
      else if (arg === "--version") args.version = true;
      else if (arg === "--verbose") args.verbose = true;
      else if (arg === "--base-url") args.baseUrl = value();
      else if (arg === "--env-file") args.envFile = value();
      else if (arg === "--timeout") {
        const text = value();
        args.timeout = Number(text);
        if (!(args.timeout > 0)) return `--timeout needs a number of seconds above 0, not "${text}"`;
      } else if (!arg.startsWith("-") && args.command === undefined) args.command = arg;
      else return `unknown argument "${arg}"`;
    } catch (error) {
      return (error as Error).message;
    }
  }
  return args;
}

async function main(argv: readonly string[]): Promise<{ code: number; text: string }> {
  const args = parseArgs(argv);
  if (typeof args === "string") return { code: 2, text: `svc: ${args}\n\n${USAGE}` };
  if (args.version) return { code: 0, text: SDK_VERSION };
  if (args.help) return { code: 0, text: USAGE };
  if (args.command !== "doctor")
    return { code: 2, text: args.command ? `svc: unknown command "${args.command}"\n\n${USAGE}` : USAGE };
  if (args.envFile !== undefined) {
    try {
      process.loadEnvFile(args.envFile);
    } catch (error) {
      return { code: 2, text: `svc: cannot read the env file ${args.envFile}: ${(error as Error).message}` };
    }
  }
  // The report says what is wrong; the SDK's own lines (a missing key...) would only repeat it.
  if (!args.verbose) configureGlobalLogger({ level: LogLevel.NONE });
  const env = readEnv();
  const connection = resolveConnection("svc doctor", { baseUrl: args.baseUrl }, env, { keysOptional: true });
  // The app's SDK does not run here: only the variables tell what it exports to the default endpoint.
  const report = await runDoctor(connection, {
    timeout: args.timeout,
    env,
    spill: spillSettings("svc doctor", resolveOptions("svc doctor", SPILL_SPECS, {}, env)),
  });
  return { code: report.ok ? 0 : 1, text: report.toString() };
}

void main(process.argv.slice(2)).then(
  ({ code, text }) => (code === 2 ? process.stderr : process.stdout).write(`${text}\n`, () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`svc: ${String(error)}\n`, () => process.exit(2));
  },
);
