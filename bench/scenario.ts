// What the outage and soak scenarios share on the runner's side: the SDK process (`scenario-child.ts`) with its event
// lines, and the wait until the sink holds everything the load created.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { Sink } from "./sink.ts";

/** One event line of the child (`bench:{"event": ...}`). */
export interface ChildEvent {
  event: string;
  [key: string]: unknown;
}

/** Environment of a `load` child: what it creates per second, and for how long. */
export interface LoadSettings {
  seconds: number;
  spansPerSecond: number;
  scoresPerSecond: number;
}

/**
 * Runs `scenario-child.ts` in `mode` against `url`, calling `onEvent` for each event line (`tell()` writes the line
 * the child waits for on stdin, once however often it is called). Resolves with the SDK's log lines once the child has ended; a child still running
 * `limitMs` after it started is killed, so that no scenario waits without bound.
 */
export function runScenarioChild(
  mode: "load" | "deadlines",
  url: string,
  load: LoadSettings | undefined,
  onEvent: (event: ChildEvent, tell: () => void) => void,
  limitMs: number,
): Promise<{ sdkLines: string[]; code: number | null }> {
  return new Promise((resolve) => {
    const env: Record<string, string> = { SINK_URL: url };
    if (load) {
      env.LOAD_SECONDS = String(load.seconds);
      env.LOAD_SPANS_PER_SECOND = String(load.spansPerSecond);
      env.LOAD_SCORES_PER_SECOND = String(load.scoresPerSecond);
    }
    const child = spawn(process.execPath, ["--expose-gc", "scenario-child.ts", mode], {
      cwd: import.meta.dirname,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const killer = setTimeout(() => {
      process.stderr.write(`scenario: the SDK process still ran after ${limitMs / 1000} s; killing it\n`);
      child.kill("SIGKILL");
    }, limitMs);
    let told = false;
    const tell = () => {
      if (told) return;
      told = true;
      child.stdin.write("done\n");
    };
    const sdkLines: string[] = [];
    readChild(child, (event) => onEvent(event, tell), sdkLines);
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ sdkLines, code });
    });
  });
}

/** What the sink must hold before the load counts as delivered. */
export interface Expected {
  spans: number;
  scores: number;
}

/**
 * Checks the sink every `everyMs` from now: calls `done(at)` with the time everything expected had arrived, or
 * `done(undefined)` once `limitMs` have passed without it. `ready()` holds the checks back (while a server is down).
 */
export function watchDelivery(
  sink: Sink,
  expected: Expected,
  limitMs: number,
  done: (deliveredAt: number | undefined) => void,
  { everyMs = 100, ready = () => true }: { everyMs?: number; ready?: () => boolean } = {},
): () => void {
  const started = performance.now();
  const timer = setInterval(() => {
    if (!ready()) return;
    const stats = sink.stats();
    const all = stats.uniqueSpans >= expected.spans && stats.uniqueScores >= expected.scores;
    if (all || performance.now() - started > limitMs) {
      clearInterval(timer);
      done(all ? performance.now() : undefined);
    }
  }, everyMs);
  return () => clearInterval(timer);
}

/** Bytes as megabytes, one decimal. */
export const mb = (bytes: unknown) => `${(Number(bytes) / 1024 / 1024).toFixed(1)} MB`;

/** Prints the SDK's log lines, each cut at 240 characters. */
export function printSdkLines(sdkLines: string[]): void {
  console.log(`- SDK log lines: ${sdkLines.length}`);
  for (const line of sdkLines) console.log(`  - \`${line.length > 240 ? `${line.slice(0, 240)}…` : line}\``);
}

/**
 * Reads a bench child's output a line at a time: its events (`bench:{json}`) go to `onEvent`, the SDK's lines into
 * `sdkLines`, anything else to this process's stderr.
 */
export function readChild(
  child: { stdout: Readable; stderr: Readable },
  onEvent: (event: ChildEvent) => void,
  sdkLines: string[],
): void {
  for (const input of [child.stdout, child.stderr]) {
    createInterface({ input }).on("line", (line) => {
      if (line.startsWith("bench:")) onEvent(JSON.parse(line.slice("bench:".length)) as ChildEvent);
      else if (line.includes("[Svc SDK]")) sdkLines.push(line);
      else if (line.trim()) process.stderr.write(`child: ${line}\n`);
    });
  }
}
