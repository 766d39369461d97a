// The spill outage run: 5 minutes of HTTP 503 at 500 spans/s and 50 scores/s, the SDK process stopped by SIGTERM
// after 2.5 minutes and a new one started; once the second has created its share the server answers again. Run with
// a spill directory shared by both processes, then without one.
//   node spill-outage.ts [--seconds 300] [--only spill|memory]   (after a build of @svc/*)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startGate } from "./gate.ts";
import { type ChildEvent, mb, readChild, watchDelivery } from "./scenario.ts";
import { startSink } from "./sink.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "300" }, only: { type: "string" } },
});
const seconds = Number(values.seconds);
const RATE = { spans: 500, scores: 50 };
const DELIVERY_LIMIT_MS = 600_000;
/** Time without a new span or score at the sink after which the wait for delivery ends. */
const QUIET_MS = 30_000;

interface Run {
  child: ReturnType<typeof spawn>;
  events: ChildEvent[];
  sdkLines: string[];
  ended: Promise<void>;
  on(event: string): Promise<ChildEvent>;
}

function startChild(url: string, loadSeconds: number, dir: string | undefined): Run {
  const env: Record<string, string | undefined> = {
    ...process.env,
    SINK_URL: url,
    LOAD_SECONDS: String(loadSeconds),
    LOAD_SPANS_PER_SECOND: String(RATE.spans),
    LOAD_SCORES_PER_SECOND: String(RATE.scores),
    SVC_SPILL_DIR: dir,
  };
  if (dir === undefined) delete env.SVC_SPILL_DIR;
  const child = spawn(process.execPath, ["spill-child.ts"], { cwd: import.meta.dirname, env, stdio: "pipe" });
  const events: ChildEvent[] = [];
  const sdkLines: string[] = [];
  const waiting = new Map<string, (event: ChildEvent) => void>();
  readChild(
    child,
    (event) => {
      events.push(event);
      waiting.get(event.event)?.(event);
    },
    sdkLines,
  );
  const killer = setTimeout(() => child.kill("SIGKILL"), (loadSeconds + 900) * 1000);
  const ended = new Promise<void>((resolve) => child.on("close", () => resolve()));
  void ended.then(() => clearTimeout(killer));
  const on = (name: string) =>
    new Promise<ChildEvent>((resolve) => {
      const seen = events.find((e) => e.event === name);
      if (seen) resolve(seen);
      else waiting.set(name, resolve);
    });
  return { child, events, sdkLines, ended, on };
}

/** Samples the directory's total size every second; returns a stop that gives the peak. */
function watchDir(dir: string | undefined): () => number {
  if (dir === undefined) return () => 0;
  let peak = 0;
  const timer = setInterval(() => {
    let bytes = 0;
    try {
      for (const name of readdirSync(dir)) bytes += statSync(join(dir, name)).size;
    } catch {
      // A file removed while listed.
    }
    peak = Math.max(peak, bytes);
  }, 1000);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

async function run(withSpill: boolean): Promise<void> {
  const sink = await startSink();
  const gate = await startGate(sink);
  const dir = withSpill ? mkdtempSync(join(tmpdir(), "svc-bench-spill-")) : undefined;
  const stopDir = watchDir(dir);
  const half = seconds / 2;
  const started = performance.now();

  const first = startChild(gate.url, seconds, dir);
  await first.on("start");
  const firstStarted = performance.now();
  await new Promise((resolve) => setTimeout(resolve, half * 1000));
  first.child.kill("SIGTERM");
  const firstEnded = await first.on("ended");
  await first.ended;
  const stoppedAt = performance.now();

  const second = startChild(gate.url, half, dir);
  const loadDone = await second.on("load-done");
  gate.set("forward");
  const upAt = performance.now();
  const expected = {
    spans: Number(firstEnded.spans) + Number(loadDone.spans),
    scores: Number(firstEnded.scores) + Number(loadDone.scores),
  };
  const deliveredAt = await new Promise<number | undefined>((resolve) => {
    // Stops early once nothing has arrived for QUIET_MS: what is lost (without a spill directory) never comes.
    let last = -1;
    let lastChange = performance.now();
    const stop = watchDelivery(sink, expected, DELIVERY_LIMIT_MS, resolve, {
      everyMs: 200,
      ready: () => {
        const received = sink.stats().spans + sink.stats().scores;
        if (received !== last) [last, lastChange] = [received, performance.now()];
        if (performance.now() - lastChange < QUIET_MS) return true;
        stop();
        resolve(undefined);
        return false;
      },
    });
  });
  second.child.stdin?.write("done\n");
  const secondEnded = await second.on("ended");
  await second.ended;
  const peakDir = stopDir();
  const stats = sink.stats();

  console.log(`\n## ${withSpill ? "With a spill directory" : "Without a spill directory"}\n`);
  console.log(
    `Outage of ${((upAt - firstStarted) / 1000).toFixed(0)} s (HTTP 503); the first process stopped by SIGTERM after ` +
      `${half} s (its shutdown took ${(Number(firstEnded.shutdownMs) / 1000).toFixed(1)} s), the second started then ` +
      `and ran ${half} s of load before the server answered.\n`,
  );
  console.log("| | spans | scores |\n| --- | --- | --- |");
  console.log(`| created (both processes) | ${expected.spans} | ${expected.scores} |`);
  console.log(`| delivered (unique, at the sink) | ${stats.uniqueSpans} | ${stats.uniqueScores} |`);
  console.log(`| lost | ${expected.spans - stats.uniqueSpans} | ${expected.scores - stats.uniqueScores} |`);
  console.log(`| duplicates at the sink | ${stats.duplicateSpans} | ${stats.scores - stats.uniqueScores} |`);
  console.log("");
  console.log(`- peak RSS: first process ${mb(firstEnded.peakRss)}, second ${mb(secondEnded.peakRss)}`);
  if (withSpill) console.log(`- spill directory's peak size: ${mb(peakDir)}`);
  console.log(
    `- drain once the server answered: ${deliveredAt ? `${((deliveredAt - upAt) / 1000).toFixed(1)} s` : "not everything within the limit"}`,
  );
  console.log(
    `- whole run ${((performance.now() - started) / 1000).toFixed(0)} s; stopped at ${((stoppedAt - started) / 1000).toFixed(0)} s`,
  );
  const lines = [...first.sdkLines, ...second.sdkLines];
  console.log(`- SDK log lines: ${lines.length}`);
  for (const line of lines) console.log(`  - \`${line.length > 240 ? `${line.slice(0, 240)}…` : line}\``);
  if (stats.malformed.length > 0) console.log(`- malformed requests: ${stats.malformed.join("; ")}`);
  await gate.close();
  await sink.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

if (values.only !== "memory") await run(true);
if (values.only !== "spill") await run(false);
