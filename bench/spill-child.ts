// The SDK side of the spill outage run (`spill-outage.ts`), one process of two: creates LOAD_SPANS_PER_SECOND spans
// and LOAD_SCORES_PER_SECOND scores a second through v6 with its defaults (and SVC_SPILL_DIR when the runner sets
// it) until SIGTERM (the first process) or until LOAD_SECONDS have passed and the runner says the sink holds
// everything (the second). Prints one JSON line per event on stdout (prefixed `bench:`).
import { scores, spans } from "./contenders/svc.ts";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";

const target = { baseUrl: process.env.SINK_URL ?? "", publicKey: "pk-bench", secretKey: "sk-bench-scenario" };
const seconds = Number(process.env.LOAD_SECONDS ?? "150");
const spansPerSecond = Number(process.env.LOAD_SPANS_PER_SECOND ?? "500");
const scoresPerSecond = Number(process.env.LOAD_SCORES_PER_SECOND ?? "50");
const TICK_MS = 10;

function report(event: string, data: Record<string, unknown> = {}): void {
  process.stdout.write(`bench:${JSON.stringify({ event, ...data })}\n`);
}

const tracing = spans(target);
const scoring = await scores(target);
let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);
report("start", { rss: process.memoryUsage().rss });

const totalTraces = Math.round((seconds * spansPerSecond) / OBSERVATIONS_PER_TRACE);
const totalScores = Math.round(seconds * scoresPerSecond);
const started = performance.now();
let traces = 0;
let created = 0;
let stopLoad = () => {};
const loaded = new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const elapsed = (performance.now() - started) / 1000;
    const traceTarget = Math.min(totalTraces, Math.floor((elapsed * spansPerSecond) / OBSERVATIONS_PER_TRACE));
    while (traces < traceTarget) tracing.trace(traces++);
    const scoreTarget = Math.min(totalScores, Math.floor(elapsed * scoresPerSecond));
    while (created < scoreTarget) scoring.create(created++);
    if (traces >= totalTraces && created >= totalScores) stopLoad();
  }, TICK_MS);
  stopLoad = () => {
    clearInterval(timer);
    resolve();
  };
});

async function finish(reason: string): Promise<void> {
  stopLoad();
  const shutdownStarted = performance.now();
  await Promise.all([scoring.shutdown(), tracing.shutdown()]);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  report("ended", {
    reason,
    spans: traces * OBSERVATIONS_PER_TRACE,
    scores: created,
    shutdownMs: Math.round(performance.now() - shutdownStarted),
    peakRss,
    maxRss: process.resourceUsage().maxRSS * 1024,
  });
}

process.once("SIGTERM", () => {
  void finish("SIGTERM").then(() => process.exit(0));
});

await loaded;
report("load-done", { spans: traces * OBSERVATIONS_PER_TRACE, scores: created });
// Waits for the runner's line on stdin: the sink holds everything, or it gave up.
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
process.stdin.destroy();
await finish("done");
