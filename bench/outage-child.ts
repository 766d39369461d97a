// The SDK side of the outage scenario, in its own process so that its memory is measured alone. Prints one JSON
// line per event on stdout (prefixed `bench:`); the SDK's own log lines go to stdout and stderr as configured.
//   node outage-child.ts outage      500 spans/s and 50 scores/s for OUTAGE_SECONDS, then waits until told (stdin)
//   node outage-child.ts deadlines   flush, shutdown and prompt.get against a server that never answers
import { SvcClient } from "@svc/client";
import { scores, spans } from "./contenders/svc.ts";

const [mode = "outage"] = process.argv.slice(2);
const target = { baseUrl: process.env.SINK_URL ?? "", publicKey: "pk-bench", secretKey: "sk-bench-outage" };
const seconds = Number(process.env.OUTAGE_SECONDS ?? "60");
const TICK_MS = 100;
/** Per tick of 100 ms: 5 traces of 10 observations (500 spans/s) and 5 scores (50 scores/s). */
const TRACES_PER_TICK = 5;
const SCORES_PER_TICK = 5;

function report(event: string, data: Record<string, unknown> = {}): void {
  process.stdout.write(`bench:${JSON.stringify({ event, ...data })}\n`);
}

/** Resolves when the parent writes a line to stdin (it has seen everything at the sink, or given up). */
function parentSaysDone(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once("data", () => {
      process.stdin.destroy();
      resolve();
    });
  });
}

/** Samples the resident set size until stopped; returns the peak. */
function memorySampler(): { stop(): { peakRss: number; peakHeap: number } } {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakRss, peakHeap };
    },
  };
}

async function outage(): Promise<void> {
  // The workload of the throughput suite (`contenders/svc.ts`): default settings, the same traces and scores.
  const tracing = spans(target);
  const scoring = await scores(target);
  globalThis.gc?.();
  const baseline = process.memoryUsage();
  const memory = memorySampler();
  report("start", { rss: baseline.rss, heapUsed: baseline.heapUsed });

  let ticks = 0;
  let traces = 0;
  let created = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < TRACES_PER_TICK; i++) tracing.trace(traces++);
      for (let i = 0; i < SCORES_PER_TICK; i++) scoring.create(created++);
      if (++ticks >= (seconds * 1000) / TICK_MS) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  report("load-done", { spans: traces * 10, scores: created });

  // No flush: the queues deliver by themselves once the server is back; the parent says when the sink has it all.
  await parentSaysDone();
  const peak = memory.stop();
  report("drained", { peakRss: peak.peakRss, peakHeap: peak.peakHeap, growthRss: peak.peakRss - baseline.rss });
  await Promise.all([scoring.shutdown(), tracing.shutdown()]);
  report("shutdown");
}

/** Times a call against a server that accepts connections and never answers. */
async function timed(what: string, fn: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await fn();
  report("timed", { what, ms: Math.round(performance.now() - start) });
}

async function deadlines(): Promise<void> {
  const tracing = spans(target);
  const scoring = await scores(target);
  const svc = new SvcClient(target);
  for (let i = 0; i < 10; i++) tracing.trace(i);
  for (let i = 0; i < 20; i++) scoring.create(i);
  const started = performance.now();
  await Promise.all([
    timed("provider.forceFlush() (SvcSpanProcessor)", () => tracing.forceFlush()),
    timed("svc.score.flush()", () => scoring.flush()),
    timed("svc.prompt.get() with a fallback", () => svc.prompt.get("greeting", { fallback: "Hello" })),
  ]);
  await Promise.all([
    timed("provider.shutdown() (SvcSpanProcessor)", () => tracing.shutdown()),
    timed("svc.score.shutdown()", () => scoring.shutdown()),
  ]);
  report("done", { ms: Math.round(performance.now() - started) });
}

await (mode === "deadlines" ? deadlines() : outage());
