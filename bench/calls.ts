// The tracing calls alone, the floor and v6 side by side in one process: blocks of traces of the spans workload,
// the contenders taking turns (order swapped every round), every queue flushed between blocks outside the timing.
// On a machine shared with other work, ratios of interleaved blocks hold where one absolute figure does not.
//   node calls.ts                                   (after a build: `pnpm bench:calls` builds first)
//   node calls.ts --rounds 300 --block 50 --warmup 40
//   node calls.ts --yield --block 200 --rounds 60      (the event loop turns between traces; exports run beside)
//   node calls.ts --only svc                         (one contender, for `node --cpu-prof calls.ts --only svc`)
//   node calls.ts --only otel,otel-svcproc           (the floor's calls with v6's span processor)
//   node calls.ts --only otel,svc-bsp                (v6's calls with the floor's processor and exporter)
//   node calls.ts --only otel-flat,svc-bsp           (the same, the floor writing metadata one key per attribute)
import { PerformanceObserver } from "node:perf_hooks";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { parseArgs } from "node:util";
import { getHeapStatistics } from "node:v8";
import { floorCallsFlatMetadata, floorCallsSvcProcessor, svcCallsFloorProcessor } from "./calls-variants.ts";
import type { SinkTarget, SpansContender } from "./contenders/types.ts";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";
import { startSink } from "./sink.ts";
import { threadClock } from "./thread-clock.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "200" },
    block: { type: "string", default: "50" },
    warmup: { type: "string", default: "30" },
    only: { type: "string", default: "otel,svc" },
    json: { type: "boolean", default: false },
    yield: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(args.rounds);
/** Traces per block: 50 traces are 500 spans, below both contenders' batch size, so no export starts inside. */
const BLOCK = Number(args.block);
/**
 * With --yield, the event loop turns between traces (as in the spans-yield workload), so each contender's own
 * export work runs beside its calls and its garbage is collected inside them; only the calls are timed.
 */
const YIELD = args.yield;
const WARMUP = Number(args.warmup);
const NAMES = args.only.split(",");
const clock = threadClock();

interface Block {
  wallUs: number;
  cpuUs: number;
  /** When the block ran (performance.now() ms), to charge it the garbage collections inside. */
  from: number;
  to: number;
  /** Growth of the used heap per observation: what the block allocated, when no collection ran inside it. */
  heapBytes: number;
}

interface ContenderModule {
  spans(target: SinkTarget): SpansContender | Promise<SpansContender>;
}

/** One block of `BLOCK` traces; µs per observation, wall clock and this thread's CPU time. */
async function runBlock(c: SpansContender, first: number): Promise<Block> {
  c.activate?.();
  const heap0 = getHeapStatistics().used_heap_size;
  let wallMs = 0;
  let cpuUs = 0;
  const from = performance.now();
  if (YIELD) {
    for (let i = first; i < first + BLOCK; i++) {
      const cpu0 = clock.nowUs();
      const t0 = performance.now();
      c.trace(i);
      wallMs += performance.now() - t0;
      cpuUs += clock.nowUs() - cpu0;
      await yieldToLoop();
    }
  } else {
    const cpu0 = clock.nowUs();
    for (let i = first; i < first + BLOCK; i++) c.trace(i);
    wallMs = performance.now() - from;
    cpuUs = clock.nowUs() - cpu0;
  }
  const to = performance.now();
  const heapBytes = getHeapStatistics().used_heap_size - heap0;
  const observations = BLOCK * OBSERVATIONS_PER_TRACE;
  return {
    wallUs: (wallMs * 1000) / observations,
    cpuUs: cpuUs / observations,
    from,
    to,
    heapBytes: heapBytes / observations,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] ?? 0;
}

const fmt = (n: number) => n.toFixed(2);

async function main(): Promise<void> {
  const sink = await startSink();
  const target: SinkTarget = { baseUrl: sink.url, publicKey: "pk-bench", secretKey: "sk-bench" };
  await fetch(`${sink.url}/__stats`); // loads fetch before any timing
  const contenders: { name: string; c: SpansContender; blocks: Block[] }[] = [];
  const variants: Record<string, ContenderModule["spans"]> = {
    "otel-svcproc": floorCallsSvcProcessor,
    "svc-bsp": svcCallsFloorProcessor,
    "otel-flat": floorCallsFlatMetadata,
  };
  for (const name of NAMES) {
    const spans = variants[name] ?? ((await import(`./contenders/${name}.ts`)) as ContenderModule).spans;
    contenders.push({ name, c: await spans(target), blocks: [] });
  }
  // Garbage collections, to tell how much of each contender's time inside its blocks they took.
  const collections: { start: number; end: number }[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  let next = 0;
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const entry of order) {
      const block = await runBlock(entry.c, next);
      next += BLOCK;
      if (round >= WARMUP) entry.blocks.push(block);
      await entry.c.forceFlush();
    }
    sink.reset();
  }
  for (const { c } of contenders) await c.shutdown();
  await sink.close();
  await new Promise((resolve) => setImmediate(resolve));
  gcObserver.disconnect();
  /** Garbage collection µs per observation inside one block. */
  const gcIn = (b: Block) => {
    let ms = 0;
    for (const g of collections) ms += Math.max(0, Math.min(g.end, b.to) - Math.max(g.start, b.from));
    return (ms * 1000) / (BLOCK * OBSERVATIONS_PER_TRACE);
  };
  const collected = (b: Block) => collections.some((g) => g.end >= b.from && g.start <= b.to);

  const summary: Record<string, unknown> = { rounds: ROUNDS, block: BLOCK, threadClock: clock.kind };
  console.log(`${ROUNDS} rounds of ${BLOCK} traces per contender (thread clock: ${clock.kind}); µs per observation`);
  console.log(
    "contender | thread CPU median (p25–p75) | wall median (p25–p75) | GC inside blocks, mean | heap bytes allocated",
  );
  for (const { name, blocks } of contenders) {
    const cpu = blocks.map((b) => b.cpuUs);
    const wall = blocks.map((b) => b.wallUs);
    const gc = blocks.reduce((sum, b) => sum + gcIn(b), 0) / Math.max(1, blocks.length);
    const heap = median(blocks.filter((b) => !collected(b)).map((b) => b.heapBytes));
    summary[name] = {
      cpuUs: median(cpu),
      wallUs: median(wall),
      gcUs: gc,
      heapBytes: heap,
      meanCpuUs: cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length),
      firstBlocks: cpu.slice(0, 5),
    };
    console.log(
      `${name} | ${fmt(median(cpu))} (${fmt(quantile(cpu, 0.25))}–${fmt(quantile(cpu, 0.75))}) | ` +
        `${fmt(median(wall))} (${fmt(quantile(wall, 0.25))}–${fmt(quantile(wall, 0.75))}) | ${fmt(gc)} | ` +
        Math.round(heap),
    );
  }
  const [floor, ...others] = contenders;
  for (const other of floor ? others : []) {
    // Ratio per round (the two blocks of a round ran back to back), then the median of those.
    const perRound = (pick: (b: Block) => number) => other.blocks.map((b, i) => pick(b) / pick(floor?.blocks[i] ?? b));
    const cpu = perRound((b) => b.cpuUs);
    const wall = perRound((b) => b.wallUs);
    summary[`${other.name}/${floor?.name}`] = { cpu: median(cpu), wall: median(wall) };
    console.log(
      `${other.name}/${floor?.name}: thread CPU ${fmt(median(cpu))}× (p25–p75 ${fmt(quantile(cpu, 0.25))}–` +
        `${fmt(quantile(cpu, 0.75))}), wall ${fmt(median(wall))}× (${fmt(quantile(wall, 0.25))}–${fmt(quantile(wall, 0.75))})`,
    );
  }
  if (args.json) console.log(JSON.stringify(summary));
}

await main();
