// One workload for one contender in a fresh process; prints one JSON result line on stdout.
//   node child.ts <contender> <spans-yield|spans-burst|scores> <count>   (SINK_URL set by the runner)
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { ScoresContender, SinkTarget, SpansContender } from "./contenders/types.ts";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";
import { threadClock } from "./thread-clock.ts";

const [contender = "", workload = "", countArg = "0"] = process.argv.slice(2);
const count = Number(countArg);
const baseUrl = process.env.SINK_URL ?? "";
const target: SinkTarget = { baseUrl, publicKey: "pk-bench", secretKey: "sk-bench" };
const LIMIT_MS = 120_000;
/** Traces whose calls are also reported on their own: the start of a fresh process. */
const FIRST_TRACES = 200;
const clock = threadClock();

interface ContenderModule {
  spans(target: SinkTarget): SpansContender | Promise<SpansContender>;
  scores(target: SinkTarget): ScoresContender | Promise<ScoresContender>;
}

async function sinkStats(): Promise<{ uniqueSpans: number; spans: number; scores: number }> {
  const res = await fetch(`${baseUrl}/__stats`);
  return (await res.json()) as { uniqueSpans: number; spans: number; scores: number };
}

/** Awaits a promise for at most LIMIT_MS; a hang is a result, not a stuck benchmark. */
async function bounded<T>(what: string, p: Promise<T>): Promise<{ ok: boolean; ms: number }> {
  const t = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), LIMIT_MS);
  });
  const ok = await Promise.race([p.then(() => true), timeout]);
  clearTimeout(timer);
  if (!ok) console.error(`bench: ${what} did not settle within ${LIMIT_MS} ms`);
  return { ok, ms: performance.now() - t };
}

async function runSpans(mod: ContenderModule, burst: boolean) {
  const c = await mod.spans(target);
  // How long the event loop is held up (by the calls and by export work on the app thread), sampled every ms.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const cpu0 = process.cpuUsage();
  const thread0 = clock.nowUs();
  const t0 = performance.now();
  let apiMs = 0;
  let apiCpuUs = 0;
  let firstCpuUs = Number.NaN;
  const firstTraces = Math.min(FIRST_TRACES, count);
  for (let i = 0; i < count; i++) {
    // Wall time of the tracing calls, and this thread's CPU time in them (steadier on a busy machine).
    const cpuA = clock.nowUs();
    const a = performance.now();
    // A promise (LangSmith) settles through promise callbacks only: awaiting it gives the loop no turn.
    const queued = c.trace(i);
    if (queued !== undefined) await queued;
    apiMs += performance.now() - a;
    apiCpuUs += clock.nowUs() - cpuA;
    if (i === firstTraces - 1) firstCpuUs = apiCpuUs;
    if (!burst) await yieldToLoop();
  }
  const loopMs = performance.now() - t0;
  const flush = await bounded("forceFlush()", c.forceFlush());
  loopDelay.disable();
  const atFlush = await sinkStats();
  const shutdown = await bounded("shutdown()", c.shutdown());
  const totalMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const threadUs = clock.nowUs() - thread0;
  return {
    observations: count * OBSERVATIONS_PER_TRACE,
    // Everything the app thread did from the first trace to shutdown: the calls, and the export work it runs.
    threadCpuUsPerObservation: threadUs / (count * OBSERVATIONS_PER_TRACE),
    apiUsPerObservation: (apiMs * 1000) / (count * OBSERVATIONS_PER_TRACE),
    apiCpuUsPerObservation: apiCpuUs / (count * OBSERVATIONS_PER_TRACE),
    // The first traces of a fresh process: V8 has not compiled the code on the path yet.
    firstApiCpuUsPerObservation: firstCpuUs / (firstTraces * OBSERVATIONS_PER_TRACE),
    loopMs,
    flushMs: flush.ms,
    flushSettled: flush.ok,
    shutdownSettled: shutdown.ok,
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    spansAtFlush: atFlush.uniqueSpans,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
  };
}

async function runScores(mod: ContenderModule) {
  const c = await mod.scores(target);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let createMs = 0;
  let createCpuUs = 0;
  for (let i = 0; i < count; i += 100) {
    const cpuA = clock.nowUs();
    for (let j = i; j < Math.min(i + 100, count); j++) {
      const a = performance.now();
      const queued = c.create(j);
      if (queued !== undefined) await queued;
      createMs += performance.now() - a;
    }
    createCpuUs += clock.nowUs() - cpuA;
  }
  // From the first flush() call to its resolution: what the process spent (all threads) and the app thread's part.
  const flushCpu0 = process.cpuUsage();
  const flushThread0 = clock.nowUs();
  const flush = await bounded("flush()", c.flush());
  const flushThreadCpuMs = (clock.nowUs() - flushThread0) / 1000;
  const flushCpu = process.cpuUsage(flushCpu0);
  const atFlush = await sinkStats();
  const shutdown = await bounded("shutdown()", c.shutdown());
  const cpu = process.cpuUsage(cpu0);
  return {
    scoresCreated: count,
    createUsPerScore: (createMs * 1000) / count,
    createCpuUsPerScore: createCpuUs / count,
    flushMs: flush.ms,
    flushCpuMs: (flushCpu.user + flushCpu.system) / 1000,
    flushThreadCpuMs,
    flushSettled: flush.ok,
    shutdownSettled: shutdown.ok,
    totalMs: performance.now() - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    scoresAtFlush: atFlush.scores,
  };
}

async function main(): Promise<void> {
  // Warm up the process's fetch (loaded lazily by Node) so no contender pays for it inside the timed calls.
  await sinkStats();
  // "<name>-gzip" runs a contender with gzip switched on the way its users can: OpenTelemetry's environment variable.
  if (contender.endsWith("-gzip")) process.env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION = "gzip";
  // "<name>+<label>" is a variant of a contender: the runner has set its environment (BENCH_VARIANTS).
  const mod = (await import(
    `./contenders/${contender.replace(/\+.*$/, "").replace(/-gzip$/, "")}.ts`
  )) as ContenderModule;
  const result = workload === "scores" ? await runScores(mod) : await runSpans(mod, workload === "spans-burst");
  const usage = process.resourceUsage();
  const peakRssMb = usage.maxRSS / 1024;
  const contextSwitches = { voluntary: usage.voluntaryContextSwitches, involuntary: usage.involuntaryContextSwitches };
  const row = { contender, workload, count, ...result, peakRssMb, contextSwitches, threadClock: clock.kind };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

const guard = setTimeout(() => {
  console.error("bench: child gave up after 5 minutes");
  process.exit(3);
}, 300_000);
guard.unref();
main().then(
  () => {
    // Every contender has shut down; anything still pending is its own leak, which must not stall the run.
    setTimeout(() => process.exit(0), 200).unref();
  },
  (error: unknown) => {
    process.stdout.write(`${JSON.stringify({ contender, workload, error: String(error) })}\n`);
    process.exit(2);
  },
);
