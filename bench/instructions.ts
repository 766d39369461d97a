// Instructions per observation of the tracing calls, counted by valgrind's callgrind: independent of the machine's
// load, for a machine shared with other work. When V8 collects garbage still moves between invocations, so each
// figure is also given without V8's garbage collector and compilers ("code"). Each figure is the difference between
// two fresh processes that differ only in how many traces they create, so what both do (start-up, imports, set-up)
// cancels out:
//   steady state: (warm-up + traces) − (warm-up only), default 300 + 1,000 against 300;
//   first traces: (first traces) − (none), default 200 against 0, both after imports and set-up: what a fresh
//                 process pays for its first calls, V8's warm-up included.
// Nothing is exported inside either process (the processors' batch sizes and timers are set out of reach and the
// process ends without a flush), so only the calls are counted.
//   node instructions.ts                                  (after a build: floor and v6)
//   node instructions.ts --only otel,svc,svc-bsp --top 25 (v6's calls with the floor's processor too; top functions)
//   node instructions.ts --only otel-flat,svc-bsp,svc  (the floor writing metadata one key per attribute, as v6 does)
//   node instructions.ts --only svc --warmup 300 --traces 1000 --first 200
//   node instructions.ts --v8-threads                     (with V8's helper threads: counts vary by about 1.5%)
// Needs valgrind (`apt-get install valgrind`); one to two minutes per process (four per contender), two at a time.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { SpansContender } from "./contenders/types.ts";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";

const { values: args } = parseArgs({
  options: {
    only: { type: "string", default: "otel,svc" },
    warmup: { type: "string", default: "300" },
    traces: { type: "string", default: "1000" },
    first: { type: "string", default: "200" },
    top: { type: "string", default: "15" },
    parallel: { type: "string", default: "2" },
    json: { type: "boolean", default: false },
    "v8-threads": { type: "boolean", default: false },
    /** Internal: run as the measured child, creating this many traces. */
    child: { type: "string" },
    count: { type: "string" },
  },
});

/** Contenders as in calls.ts, with processors that export nothing while the calls run. */
async function contender(name: string): Promise<SpansContender> {
  const target = { baseUrl: "http://127.0.0.1:9", publicKey: "pk-bench", secretKey: "sk-bench" };
  const { BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  const { SvcSpanProcessor } = await import("@svc/otel");
  const { floorCalls } = await import("./contenders/otel.ts");
  const { svcCalls } = await import("./contenders/svc.ts");
  const quiet = { maxQueueSize: 1_000_000, maxExportBatchSize: 1_000_000, scheduledDelayMillis: 1e9 };
  const bsp = () =>
    new BatchSpanProcessor(
      new OTLPTraceExporter({ url: `${target.baseUrl}/v1/traces`, compression: "gzip" as never }),
      quiet,
    ) as SpanProcessor;
  const svcProcessor = () =>
    new SvcSpanProcessor({
      ...target,
      flushAt: 1_000_000,
      maxQueueSize: 1_000_000,
      maxQueueBytes: 2 ** 40,
      flushInterval: 1e6,
    }) as unknown as SpanProcessor;
  switch (name) {
    case "otel":
      return floorCalls(bsp());
    case "otel-flat":
      return floorCalls(bsp(), { scope: "svc-sdk", flatMetadata: true });
    case "svc":
      return svcCalls(svcProcessor());
    case "svc-bsp":
      return svcCalls(bsp());
    case "otel-svcproc":
      return floorCalls(svcProcessor(), { scope: "svc-sdk" });
    default:
      throw new Error(`unknown contender ${name}: otel, otel-flat, svc, svc-bsp, otel-svcproc`);
  }
}

if (args.child) {
  const c = await contender(args.child);
  const count = Number(args.count);
  for (let i = 0; i < count; i++) c.trace(i);
  // No flush, no shutdown: the spans stay queued and the process ends here.
  process.exit(0);
}

interface Count {
  total: number;
  /** Self instructions per function name, from callgrind_annotate. */
  self: Map<string, number>;
}

function run(command: string, argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

/** Reads callgrind_annotate's function table: "  1,234 (12.3%)  file:function" lines. */
function annotate(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.+)$/.exec(line);
    if (!m?.[1] || !m[2] || m[2].includes("PROGRAM TOTALS")) continue;
    const name = m[2].replace(/\s+\[[^\]]*\]$/, "").trim();
    out.set(name, (out.get(name) ?? 0) + Number(m[1].replaceAll(",", "")));
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "svc-instructions-"));

/** One fresh process under callgrind creating `count` traces of `name`. */
async function measure(name: string, count: number): Promise<Count> {
  const file = join(dir, `${name}-${count}.out`);
  await run("valgrind", [
    "--tool=callgrind",
    `--callgrind-out-file=${file}`,
    process.execPath,
    ...process.execArgv,
    // V8's helper threads (concurrent compilation and marking) make the counts of one process vary by about 1.5%,
    // about 3,000 instructions per observation in a difference of 10,000; on one thread with fixed seeds two runs
    // agree to about 0.1%.
    ...(args["v8-threads"] ? [] : ["--single-threaded", "--hash-seed=1", "--random-seed=1"]),
    new URL(import.meta.url).pathname,
    "--child",
    name,
    "--count",
    String(count),
  ]);
  const summary = /^(?:summary|totals):\s*(\d+)/m.exec(readFileSync(file, "utf8"));
  if (!summary?.[1]) throw new Error(`no total in ${file}`);
  const self = annotate(await run("callgrind_annotate", ["--threshold=100", file]));
  return { total: Number(summary[1]), self };
}

/**
 * Where V8 spends instructions besides running the code: its garbage collector and its compilers, told by the
 * names of their C++ functions. When a collection falls inside or outside the counted traces moves with every change
 * of what is allocated, so a change is judged on the rest ("code") as well as on the total.
 */
const PARTS: [string, RegExp][] = [
  [
    "garbage collection",
    /v8::internal::(Scaveng|Mark|Sweep|Heap::|Evacuat|MemoryAllocator|PagedSpace|NewSpace|SemiSpace|LargeObjectSpace|ConcurrentMarking|MinorMark|GCTracer|RememberedSet|SlotSet|PretenuringHandler|BodyDescriptorBase::Iterate|IncrementalMarking|MarkCompact|Compactor|PointersUpdating|ObjectVisitor|CollectorBase|HeapObject::SizeFromMap|MainMarkingVisitor|Free)|heap::base::/,
  ],
  [
    "compilation",
    /v8::internal::(compiler::|maglev::|baseline::|interpreter::Bytecode(Generator|ArrayBuilder)|Parser|Scanner|Compiler::|OptimizingCompile|Pipeline|turboshaft::|wasm::)/,
  ],
];

function parts(self: Map<string, number>): number[] {
  const out = PARTS.map(() => 0);
  for (const [fn, n] of self) {
    const i = PARTS.findIndex(([, pattern]) => pattern.test(fn));
    if (i >= 0) out[i] = (out[i] ?? 0) + n;
  }
  return out;
}

/** Runs the jobs at most `limit` at a time (each is a valgrind process on its own core). */
async function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await (jobs[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  return results;
}

function diff(a: Map<string, number>, b: Map<string, number>, per: number): [string, number][] {
  const out = new Map<string, number>();
  for (const [k, v] of a) out.set(k, v / per);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) - v / per);
  return [...out].sort((x, y) => y[1] - x[1]);
}

const WARMUP = Number(args.warmup);
const TRACES = Number(args.traces);
const FIRST = Number(args.first);
const TOP = Number(args.top);
const names = args.only.split(",");
const sizes = [WARMUP, WARMUP + TRACES, 0, FIRST];
const jobs = names.flatMap((name) => sizes.map((n) => () => measure(name, n)));
const counts = await pool(jobs, Number(args.parallel));
rmSync(dir, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const summary: Record<string, { steady: number; first: number; steadyCode: number; firstCode: number }> = {};
console.log(
  `instructions per observation (callgrind): steady state = ${WARMUP} + ${TRACES} traces − ${WARMUP}; ` +
    `first ${FIRST} traces = ${FIRST} − 0, after imports and set-up`,
);
console.log(
  "contender | steady state | / floor | of which GC, compilers | code | / floor | first traces | / floor | of which GC, compilers | code | / floor",
);
const partsOf: Record<string, [number[], number[]]> = {};
/** The four processes of contender `i`: warm-up only, warm-up and traces, none, the first traces. */
const processes = (i: number) => counts.slice(i * 4, i * 4 + 4) as [Count, Count, Count, Count];
names.forEach((name, i) => {
  const [warm, full, none, first] = processes(i);
  const steadyParts = parts(full.self).map(
    (n, k) => (n - (parts(warm.self)[k] ?? 0)) / (TRACES * OBSERVATIONS_PER_TRACE),
  );
  const firstParts = parts(first.self).map(
    (n, k) => (n - (parts(none.self)[k] ?? 0)) / (FIRST * OBSERVATIONS_PER_TRACE),
  );
  const steady = (full.total - warm.total) / (TRACES * OBSERVATIONS_PER_TRACE);
  const firstTraces = (first.total - none.total) / (FIRST * OBSERVATIONS_PER_TRACE);
  summary[name] = {
    steady,
    first: firstTraces,
    steadyCode: steady - steadyParts.reduce((a, b) => a + b, 0),
    firstCode: firstTraces - firstParts.reduce((a, b) => a + b, 0),
  };
  partsOf[name] = [steadyParts, firstParts];
});
const floor = summary[names[0] ?? ""];
for (const name of names) {
  const s = summary[name];
  if (!s || !floor) continue;
  const [steadyParts = [], firstParts = []] = partsOf[name] ?? [];
  console.log(
    `${name} | ${fmt(s.steady)} | ${(s.steady / floor.steady).toFixed(3)}× | ${steadyParts.map(fmt).join(", ")} | ` +
      `${fmt(s.steadyCode)} | ${(s.steadyCode / floor.steadyCode).toFixed(3)}× | ${fmt(s.first)} | ` +
      `${(s.first / floor.first).toFixed(3)}× | ${firstParts.map(fmt).join(", ")} | ${fmt(s.firstCode)} | ` +
      `${(s.firstCode / floor.firstCode).toFixed(3)}×`,
  );
}
if (TOP > 0) {
  names.forEach((name, i) => {
    const [warm, full] = processes(i);
    const per = TRACES * OBSERVATIONS_PER_TRACE;
    // Self cost only: inclusive costs through code compiled at run time (bare addresses) say nothing.
    console.log(`\n${name}, steady state, top ${TOP} functions by own instructions per observation:`);
    for (const [fn, n] of diff(full.self, warm.self, per).slice(0, TOP)) console.log(`${fmt(n).padStart(10)}  ${fn}`);
  });
}
if (args.json) console.log(JSON.stringify(summary));
