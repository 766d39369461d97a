// One mode of `worker-export.ts` in a fresh process: builds the spans workload's ended spans with v6, then encodes
// and gzips them in batches on the app thread or in a worker, measures, checks every body, prints one JSON line.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { parseArgs } from "node:util";
import { getHeapStatistics } from "node:v8";
import { Worker } from "node:worker_threads";
import { gunzipSync } from "node:zlib";
import { encodeTraces } from "@svc/tracing/internal";
import { exportedBatches } from "./exported-batches.ts";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";
import { threadClock } from "./thread-clock.ts";
import type { Done, Item, Job, Mode } from "./worker-export-thread.ts";
import { toRecords } from "./worker-export-thread.ts";

const { values: args } = parseArgs({
  options: { child: { type: "string" }, traces: { type: "string", default: "2000" } },
});
const mode = args.child as Mode;
const traces = Number(args.traces);
const clock = threadClock();
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

interface Sampler {
  read(): void;
  stop(): { peakRss: number; peakHeap: number };
}

/**
 * Samples RSS (every thread's memory: the worker's too) and this thread's used heap when a body is ready or a batch
 * is handed over, and every 50 ms: reading RSS costs about 0.2 ms of this thread's CPU, so sampling every few
 * milliseconds would cost the idle app thread more than what is measured.
 */
function sample(): Sampler {
  let peakRss = 0;
  let peakHeap = 0;
  const read = () => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size);
  };
  read();
  const timer = setInterval(read, 50);
  return {
    read,
    stop() {
      clearInterval(timer);
      read();
      return { peakRss, peakHeap };
    },
  };
}

/** Encodes every batch on this thread, `concurrency` at a time, as the export stage does. */
async function onAppThread(batches: Item[][], concurrency: number, sampler?: Sampler): Promise<Uint8Array[]> {
  const bodies: Uint8Array[] = new Array(batches.length);
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const i = next++;
      bodies[i] = (await encodeTraces(batches[i] as never, "http/json", "gzip")).bytes;
      sampler?.read();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return bodies;
}

interface WorkerRun {
  bodies: Uint8Array[];
  handoverUs: number;
  handoverMaxMs: number;
  workerThreadCpuUs: number;
  workerPeakHeap: number;
}

/** Batches handed to the worker and not yet back: one being encoded, one waiting, as a bounded export queue would. */
const IN_FLIGHT = 2;

/**
 * Hands the batches to the worker, at most `IN_FLIGHT` at a time, and waits for every body. Handing over is
 * synchronous on this thread (the records, then `postMessage()`'s structured clone); each body comes back
 * transferred, not copied.
 */
async function inWorker(worker: Worker, batches: Item[][], sync: boolean, sampler?: Sampler): Promise<WorkerRun> {
  const bodies: Uint8Array[] = new Array(batches.length);
  let handoverUs = 0;
  let handoverMaxMs = 0;
  let workerThreadCpuUs = 0;
  let workerPeakHeap = 0;
  let sent = 0;
  let received = 0;
  const handOver = () => {
    const a = clock.nowUs();
    const t = performance.now();
    const job: Job = { id: sent, records: toRecords(batches[sent] as Item[]), sync };
    worker.postMessage(job);
    sent++;
    handoverMaxMs = Math.max(handoverMaxMs, performance.now() - t);
    handoverUs += clock.nowUs() - a;
    sampler?.read();
  };
  await new Promise<void>((resolve, reject) => {
    worker.on("error", reject);
    worker.on("message", (done: Done) => {
      bodies[done.id] = done.bytes;
      sampler?.read();
      workerThreadCpuUs = Math.max(workerThreadCpuUs, done.threadCpuUs);
      workerPeakHeap = Math.max(workerPeakHeap, done.heapUsed);
      if (++received === batches.length) resolve();
      else if (sent < batches.length) handOver();
    });
    while (sent < Math.min(IN_FLIGHT, batches.length)) handOver();
  });
  worker.removeAllListeners("message");
  worker.removeAllListeners("error");
  return { bodies, handoverUs, handoverMaxMs, workerThreadCpuUs, workerPeakHeap };
}

/** Starts the worker and waits until it has loaded its modules; what that costs. */
async function startWorker() {
  gc();
  const rss0 = process.memoryUsage.rss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = new Worker(new URL("./worker-export-thread.ts", import.meta.url));
  const first = await new Promise<{ ready?: boolean; threadCpuUs: number }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  if (!first.ready) throw new Error(`the worker said ${JSON.stringify(first)}`);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const heap = await worker.getHeapStatistics();
  return {
    worker,
    startup: {
      wallMs,
      processCpuMs: (cpu.user + cpu.system) / 1000,
      rssMb: (process.memoryUsage.rss() - rss0) / 2 ** 20,
      workerHeapMb: heap.used_heap_size / 2 ** 20,
    },
  };
}

/** Every body gunzips to the OTLP/JSON the app thread's encoder makes of its batch; the spans, all distinct. */
async function check(batches: Item[][], bodies: Uint8Array[]): Promise<number> {
  const ids = new Set<string>();
  for (let i = 0; i < batches.length; i++) {
    const text = gunzipSync(bodies[i] as Uint8Array).toString("utf8");
    const expected = Buffer.from((await encodeTraces(batches[i] as never, "http/json", "none")).bytes).toString("utf8");
    if (text !== expected) throw new Error(`batch ${i}: the body differs from the app thread's encoding`);
    const request = JSON.parse(text) as {
      resourceSpans: { scopeSpans: { spans: { traceId: string; spanId: string }[] }[] }[];
    };
    for (const r of request.resourceSpans)
      for (const s of r.scopeSpans) for (const span of s.spans) ids.add(`${span.traceId}:${span.spanId}`);
  }
  return ids.size;
}

/** The encoding alone (no gzip) of every batch on this thread: what a handover is set against. */
async function encodeOnlyUs(batches: Item[][]): Promise<number> {
  const a = clock.nowUs();
  for (const batch of batches) await encodeTraces(batch as never, "http/json", "none");
  return clock.nowUs() - a;
}

async function main(): Promise<void> {
  const batches = (await exportedBatches(traces)) as unknown as Item[][];
  const spans = batches.reduce((n, b) => n + b.length, 0);
  if (spans !== traces * OBSERVATIONS_PER_TRACE) throw new Error(`${spans} spans exported, not ${traces * 10}`);
  // Warm-up, outside the measurement: the encoder and gzip on this thread, with a batch the run does not time.
  await onAppThread(batches.slice(0, 2), 1);
  const isWorker = mode === "worker" || mode === "worker-sync";
  const started = isWorker ? await startWorker() : undefined;
  // The worker's thread CPU when its warm-up (the same two batches) was done: the batches' work is counted from here.
  const workerCpu0 = started
    ? (await inWorker(started.worker, batches.slice(0, 2), mode === "worker-sync")).workerThreadCpuUs
    : 0;
  const sync = mode === "worker-sync";
  const concurrency = mode === "app-flush" ? 2 : 1;
  // First pass: CPU, wall time and memory, with nothing else on the loop.
  gc();
  await yieldToLoop();
  const rss0 = process.memoryUsage.rss();
  const heap0 = getHeapStatistics().used_heap_size;
  const sampler = sample();
  const cpu0 = process.cpuUsage();
  const thread0 = clock.nowUs();
  const t0 = performance.now();
  let bodies: Uint8Array[];
  let run: WorkerRun | undefined;
  if (started) {
    run = await inWorker(started.worker, batches, sync, sampler);
    bodies = run.bodies;
  } else {
    bodies = await onAppThread(batches, concurrency, sampler);
  }
  const wallMs = performance.now() - t0;
  const threadUs = clock.nowUs() - thread0;
  const cpu = process.cpuUsage(cpu0);
  const { peakRss, peakHeap } = sampler.stop();
  // Second pass, the same batches: the event loop's longest stall. The delay monitor wakes the loop every
  // millisecond, which costs an idle app thread about 30 µs per millisecond: it is kept out of the first pass.
  gc();
  await yieldToLoop();
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  if (started) await inWorker(started.worker, batches, sync);
  else await onAppThread(batches, concurrency);
  loopDelay.disable();
  if (started) await started.worker.terminate();
  const distinct = await check(batches, bodies);
  const encodeOnly = isWorker ? 0 : await encodeOnlyUs(batches);
  const row = {
    mode,
    spans,
    batches: batches.length,
    bodyBytes: bodies.reduce((n, b) => n + b.byteLength, 0),
    checked: distinct === spans,
    appThreadCpuMs: threadUs / 1000,
    processCpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    stallMaxMs: loopDelay.max / 1e6,
    handoverMaxMs: run?.handoverMaxMs ?? 0,
    handoverUsPerBatch: run ? run.handoverUs / batches.length : 0,
    peakRssDeltaMb: (peakRss - rss0) / 2 ** 20,
    peakHeapDeltaMb: (peakHeap - heap0) / 2 ** 20,
    workerThreadCpuMs: run ? (run.workerThreadCpuUs - workerCpu0) / 1000 : 0,
    workerPeakHeapMb: run ? run.workerPeakHeap / 2 ** 20 : 0,
    startup: started?.startup,
    encodeOnlyUsPerBatch: encodeOnly / batches.length,
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stdout.write(`${JSON.stringify({ mode, error: String(error) })}\n`);
    process.exit(2);
  },
);
