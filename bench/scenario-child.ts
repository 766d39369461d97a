// The SDK side of the outage and soak scenarios, in its own process so that its memory is measured alone. Prints one
// JSON line per event on stdout (prefixed `bench:`); the SDK's own log lines go to stdout and stderr as configured.
//   node scenario-child.ts load        LOAD_SPANS_PER_SECOND spans and LOAD_SCORES_PER_SECOND scores a second for
//                                     LOAD_SECONDS, through v6 with its defaults; then waits until told (stdin)
//   node scenario-child.ts deadlines   flush, shutdown and prompt.get against a server that never answers
import { monitorEventLoopDelay } from "node:perf_hooks";
import { SvcClient } from "@svc/client";
import { scores, spans } from "./contenders/svc.ts";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";

const [mode = "load"] = process.argv.slice(2);
const target = { baseUrl: process.env.SINK_URL ?? "", publicKey: "pk-bench", secretKey: "sk-bench-scenario" };
const seconds = Number(process.env.LOAD_SECONDS ?? "60");
const spansPerSecond = Number(process.env.LOAD_SPANS_PER_SECOND ?? "500");
const scoresPerSecond = Number(process.env.LOAD_SCORES_PER_SECOND ?? "50");
/** The load is created in small steps, each catching up with the rate since the start, so it stays steady. */
const TICK_MS = 10;

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

/** Samples the resident set size and heap every 100 ms until stopped; returns the peaks. */
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

async function load(): Promise<void> {
  // The workload of the throughput suite (`contenders/svc.ts`): default settings, the same traces and scores.
  const tracing = spans(target);
  const scoring = scoresPerSecond > 0 ? await scores(target) : undefined;
  globalThis.gc?.();
  const baseline = process.memoryUsage();
  const memory = memorySampler();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  report("start", { rss: baseline.rss, heapUsed: baseline.heapUsed });

  const totalTraces = Math.round((seconds * spansPerSecond) / OBSERVATIONS_PER_TRACE);
  const totalScores = Math.round(seconds * scoresPerSecond);
  const started = performance.now();
  let traces = 0;
  let created = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      const traceTarget = Math.min(totalTraces, Math.floor((elapsed * spansPerSecond) / OBSERVATIONS_PER_TRACE));
      while (traces < traceTarget) tracing.trace(traces++);
      const scoreTarget = Math.min(totalScores, Math.floor(elapsed * scoresPerSecond));
      while (created < scoreTarget) scoring?.create(created++);
      if (traces >= totalTraces && created >= totalScores) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  loopDelay.disable();
  report("load-done", {
    spans: traces * OBSERVATIONS_PER_TRACE,
    scores: created,
    loadMs: performance.now() - started,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
  });

  // No flush: the queues deliver by themselves; the parent says when the sink has it all. Once no span is left
  // waiting or in flight (what was not delivered was dropped), say so: the soak need not wait any longer.
  const idle = setInterval(() => {
    const health = tracing.health?.();
    if (health && health.queued === 0 && health.inFlight === 0) {
      clearInterval(idle);
      report("idle", { dropped: health.dropped });
    }
  }, 100);
  await parentSaysDone();
  clearInterval(idle);
  const peak = memory.stop();
  report("drained", {
    peakRss: peak.peakRss,
    peakHeap: peak.peakHeap,
    growthRss: peak.peakRss - baseline.rss,
    maxRss: process.resourceUsage().maxRSS * 1024,
  });
  await Promise.all([scoring?.shutdown(), tracing.shutdown()]);
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

await (mode === "deadlines" ? deadlines() : load());
