// The performance suite: every contender does the same work, each run in a fresh Node process, alternating order,
// against a local sink. Prints a table and writes results/latest.json (results/quick.json in quick mode).
//   node run.ts                full suite (5 runs)
//   node run.ts --quick        small sizes, one run, correctness only (non-zero exit when anything is lost)
//   node run.ts --runs 7 --traces 2000 --scores 10000 --skip-install
//   node run.ts --only otel,svc --workloads spans-burst --skip-static   (one comparison, for profiling work)
//   node run.ts --only otel,svc,langsmith,openinference --skip-static  (v6 beside the peer SDKs)
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { OBSERVATIONS_PER_TRACE } from "./payload.ts";
import { type SinkStats, startSink } from "./sink.ts";
import type { LangsmithCompression } from "./sink-langsmith.ts";
import { bundleGzipBytes, coldImportMs, IMPORTS, installBytes } from "./static.ts";
import { threadClock } from "./thread-clock.ts";

const HERE = import.meta.dirname;
const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    runs: { type: "string" },
    traces: { type: "string" },
    scores: { type: "string" },
    imports: { type: "string" },
    "skip-install": { type: "boolean", default: false },
    only: { type: "string" },
    workloads: { type: "string" },
    "skip-static": { type: "boolean", default: false },
    "eager-sink": { type: "boolean", default: false },
    "langsmith-compression": { type: "string", default: "zstd" },
  },
});
const quick = args.quick;
const RUNS = Number(args.runs ?? (quick ? 1 : 5));
const TRACES = Number(args.traces ?? (quick ? 100 : 2000));
const SCORES = Number(args.scores ?? (quick ? 1000 : 10_000));
const IMPORT_RUNS = Number(args.imports ?? (quick ? 0 : 9));
const CONTENDERS = (
  args.only ?? (quick ? "otel,v5,svc,langsmith,openinference" : "otel,v5,v5-gzip,svc,langsmith,openinference")
).split(",");
/**
 * Contenders measured only on spans: v5 with gzip switched on through OpenTelemetry's environment variable, and
 * OpenInference, which has no score API.
 */
const SPANS_ONLY = new Set(["v5-gzip", "openinference"]);
const ALL_WORKLOADS = ["spans-yield", "spans-burst", "scores"] as const;
type Workload = (typeof ALL_WORKLOADS)[number];
const WORKLOADS = ALL_WORKLOADS.filter((w) => (args.workloads ?? ALL_WORKLOADS.join(",")).split(",").includes(w));
/**
 * Contenders held to losing nothing: v6, and the others configured not to lose (queues sized for the workload).
 * The previous major runs as installed and is measured, not held to it.
 */
const CHECKED = new Set(["otel", "svc", "langsmith", "openinference"]);
const LANGSMITH_COMPRESSION = args["langsmith-compression"] as LangsmithCompression;
if (!["zstd", "gzip", "none"].includes(LANGSMITH_COMPRESSION)) {
  throw new Error(`--langsmith-compression takes zstd, gzip or none, not ${LANGSMITH_COMPRESSION}`);
}

type Row = Record<string, number | boolean | string | string[]>;

interface ChildOutcome {
  row: Row | undefined;
  stderr: string[];
  exitCode: number | null;
}

function runChild(contender: string, workload: Workload, count: number, sinkUrl: string): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(HERE, "child.ts"), contender, workload, String(count)], {
      cwd: HERE,
      env: { ...process.env, ...variantEnv(contender), SINK_URL: sinkUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d;
    });
    child.on("close", (exitCode) => {
      const line = out.trim().split("\n").pop() ?? "";
      let row: Row | undefined;
      try {
        row = JSON.parse(line) as Row;
      } catch {
        row = undefined;
      }
      resolve({ row, stderr: err.split("\n").filter((l) => l.trim() !== ""), exitCode });
    });
  });
}

/**
 * Environment of a variant contender `<name>+<label>`: the object `BENCH_VARIANTS[label]` (JSON in the
 * environment), for experiments that run a changed contender beside the usual ones in the same invocation.
 */
function variantEnv(contender: string): Record<string, string> {
  const label = contender.split("+")[1];
  if (label === undefined) return {};
  const variants = JSON.parse(process.env.BENCH_VARIANTS ?? "{}") as Record<string, Record<string, string>>;
  const env = variants[label];
  if (env === undefined) throw new Error(`BENCH_VARIANTS has no variant "${label}"`);
  return env;
}

/** Adds what the sink saw to what the child measured. */
function combine(workload: Workload, count: number, outcome: ChildOutcome, sink: SinkStats): Row {
  const row: Row = { ...(outcome.row ?? {}), exitCode: outcome.exitCode ?? -1, logLines: outcome.stderr.length };
  if (outcome.stderr.length > 0) row.firstLogLine = outcome.stderr[0]!.slice(0, 200);
  row.malformed = sink.malformed;
  const switches = row.contextSwitches as unknown as { involuntary?: number } | undefined;
  if (switches?.involuntary !== undefined) row.involuntarySwitches = switches.involuntary;
  if (workload === "scores") {
    row.scoresAtEnd = sink.scores;
    row.scoresLost = count - sink.scores;
    row.requests = sink.scoreRequests;
    row.bytes = sink.scoreBytes;
  } else {
    const expected = count * OBSERVATIONS_PER_TRACE;
    row.spansAtEnd = sink.uniqueSpans;
    row.spansLost = expected - sink.uniqueSpans;
    row.duplicateSpans = sink.duplicateSpans;
    row.incompleteRuns = sink.incompleteRuns;
    row.requests = sink.spanRequests;
    row.gzipRequests = sink.gzipRequests;
    row.bytes = sink.spanBytes;
    row.bytesPerSpan = sink.uniqueSpans > 0 ? sink.spanBytes / sink.uniqueSpans : 0;
  }
  return row;
}

function bucket<T>(map: Record<string, T>, key: string, make: () => T): T {
  map[key] ??= make();
  return map[key];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Summary {
  median: number;
  min: number;
  max: number;
}

function summarise(rows: Row[], key: string): Summary | undefined {
  const xs = rows.map((r) => r[key]).filter((x): x is number => typeof x === "number" && Number.isFinite(x));
  if (xs.length === 0) return undefined;
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

function fmt(n: number): string {
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString("en-US");
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function cell(s: Summary | undefined, runs: number): string {
  if (!s) return "n/a";
  if (runs < 2 || s.min === s.max) return fmt(s.median);
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}

async function main(): Promise<void> {
  const started = new Date();
  const clock = threadClock();
  console.log(
    clock.note === undefined
      ? "thread CPU clock: /proc/thread-self/schedstat, refreshed by process.cpuUsage() at each read"
      : `thread CPU clock: ${clock.note}`,
  );
  const sink = await startSink({ deferDecoding: !args["eager-sink"], langsmithCompression: LANGSMITH_COMPRESSION });
  const rows: Record<string, Record<string, Row[]>> = {};
  const unavailable: Record<string, string> = {};
  const problems: string[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      // Rotate the order every run so no contender always goes first or last.
      const order = CONTENDERS.map((_, k) => CONTENDERS[(k + run) % CONTENDERS.length]!);
      for (const workload of WORKLOADS) {
        const count = workload === "scores" ? SCORES : TRACES;
        for (const contender of order) {
          if (unavailable[`${contender} ${workload}`]) continue;
          if (workload === "scores" && SPANS_ONLY.has(contender)) continue;
          sink.reset();
          const outcome = await runChild(contender, workload, count, sink.url);
          if (!outcome.row || outcome.row.error !== undefined) {
            const why = String(outcome.row?.error ?? outcome.stderr.slice(-3).join(" | ") ?? "no result line");
            unavailable[`${contender} ${workload}`] = why;
            console.log(`${contender} ${workload}: unavailable (${why})`);
            continue;
          }
          const row = combine(workload, count, outcome, sink.stats());
          bucket(
            bucket(rows, contender, () => ({})),
            workload,
            () => [] as Row[],
          ).push(row);
          const lost = workload === "scores" ? row.scoresLost : row.spansLost;
          const atFlush = workload === "scores" ? row.scoresAtFlush : row.spansAtFlush;
          console.log(
            `run ${run + 1}/${RUNS} ${workload.padEnd(11)} ${contender.padEnd(13)} lost=${lost} atFlush=${atFlush} ` +
              `requests=${row.requests} logLines=${row.logLines}`,
          );
          if (CHECKED.has(contender)) {
            const expected = workload === "scores" ? count : count * OBSERVATIONS_PER_TRACE;
            if (lost !== 0) problems.push(`${contender} ${workload}: ${lost} lost`);
            // Raw OpenTelemetry's forceFlush() does not wait for a batch already in flight; only v6 promises this.
            if (contender === "svc" && atFlush !== expected) {
              problems.push(`${contender} ${workload}: ${atFlush} of ${expected} at flush`);
            }
            if (row.duplicateSpans) problems.push(`${contender} ${workload}: ${row.duplicateSpans} duplicate spans`);
          }
          if ((row.malformed as string[]).length > 0) {
            problems.push(`${contender} ${workload}: malformed requests: ${(row.malformed as string[]).join("; ")}`);
          }
          if (row.exitCode !== 0) problems.push(`${contender} ${workload}: child exited ${row.exitCode}`);
        }
      }
    }
  } finally {
    await sink.close();
  }
  for (const [what, why] of Object.entries(unavailable)) {
    if (CHECKED.has(what.split(" ")[0]!)) problems.push(`${what}: unavailable: ${why}`);
  }

  const statics: Record<string, Record<string, number>> = {};
  const available = CONTENDERS.filter((c) => IMPORTS[c] !== undefined);
  if (IMPORT_RUNS > 0 && !args["skip-static"]) {
    const times: Record<string, number[]> = {};
    for (let k = 0; k < IMPORT_RUNS; k++) {
      for (const c of available.map((_, j) => available[(j + k) % available.length]!)) {
        try {
          bucket(times, c, () => []).push(coldImportMs(c));
        } catch (error) {
          console.log(`${c}: import failed: ${String(error).slice(0, 300)}`);
        }
      }
    }
    for (const c of available) {
      if (times[c]?.length) bucket(statics, c, (): Record<string, number> => ({})).importMs = median(times[c]);
    }
    console.log("cold import measured");
  }
  if (!quick && !args["skip-static"]) {
    for (const c of available) {
      try {
        const bundle = await bundleGzipBytes(c);
        Object.assign(
          bucket(statics, c, (): Record<string, number> => ({})),
          {
            bundleGzipBytes: bundle.gzipped,
            bundleLazyGzipBytes: bundle.lazyGzipped,
            bundleOneFileGzipBytes: bundle.oneFileGzipped,
          },
        );
      } catch (error) {
        console.log(`${c}: bundle failed: ${String(error).slice(0, 300)}`);
      }
    }
    console.log("bundles measured");
  }
  if (!quick && !args["skip-install"] && !args["skip-static"]) {
    for (const c of available) {
      try {
        bucket(statics, c, (): Record<string, number> => ({})).installBytes = installBytes(c);
      } catch (error) {
        console.log(`${c}: install failed: ${String(error).slice(0, 300)}`);
      }
    }
    console.log("installs measured");
  }

  const report = buildReport(rows, statics);
  if (quick) console.log("\nquick mode: sizes too small for timing; the ratios below are not measurements");
  console.log(`\n${report.table}`);
  if (clock.note !== undefined) console.log(`\nthread-CPU rows read a less exact clock: ${clock.note}`);
  mkdirSync(join(HERE, "results"), { recursive: true });
  writeFileSync(
    join(HERE, "results", quick ? "quick.json" : "latest.json"),
    JSON.stringify(
      {
        date: started.toISOString(),
        machine: machine(),
        settings: {
          runs: RUNS,
          traces: TRACES,
          scores: SCORES,
          importRuns: IMPORT_RUNS,
          quick,
          threadClock: clock.kind,
          langsmithCompression: LANGSMITH_COMPRESSION,
        },
        unavailable,
        rows,
        statics,
        summary: report.summary,
      },
      null,
      2,
    ),
  );
  if (problems.length > 0) {
    console.log(`\nCORRECTNESS PROBLEMS:\n- ${problems.join("\n- ")}`);
    process.exitCode = 1;
  } else console.log("\ncorrectness: nothing lost, every request well formed");
}

function machine(): Record<string, string | number> {
  let cpuModel = cpus()[0]?.model ?? "unknown";
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line) cpuModel = line.split(":")[1]!.trim();
  } catch {
    // not Linux: keep os.cpus()
  }
  return { node: process.version, cpus: cpus().length, cpuModel, platform: `${process.platform}-${process.arch}` };
}

interface Metric {
  label: string;
  workload: Workload | "static";
  key: string;
  /** Target ratio against the floor (v6 / floor at most this), when the metric has one. */
  target?: number;
  /** Absolute target instead of a ratio. */
  absolute?: (v: number, expected: number) => boolean;
  absoluteLabel?: string;
}

const METRICS: Metric[] = [
  { label: "API µs/observation (yield)", workload: "spans-yield", key: "apiUsPerObservation", target: 1.0 },
  { label: "API µs/observation (burst)", workload: "spans-burst", key: "apiUsPerObservation", target: 1.0 },
  {
    label: "API thread-CPU µs/observation (yield)",
    workload: "spans-yield",
    key: "apiCpuUsPerObservation",
    target: 1.0,
  },
  {
    label: "API thread-CPU µs/observation (burst)",
    workload: "spans-burst",
    key: "apiCpuUsPerObservation",
    target: 1.0,
  },
  {
    label: "API thread-CPU µs/observation, first 200 traces (yield)",
    workload: "spans-yield",
    key: "firstApiCpuUsPerObservation",
    target: 1.0,
  },
  {
    label: "API thread-CPU µs/observation, first 200 traces (burst)",
    workload: "spans-burst",
    key: "firstApiCpuUsPerObservation",
    target: 1.0,
  },
  {
    label: "app-thread CPU µs/observation, until shutdown (yield)",
    workload: "spans-yield",
    key: "threadCpuUsPerObservation",
  },
  {
    label: "app-thread CPU µs/observation, until shutdown (burst)",
    workload: "spans-burst",
    key: "threadCpuUsPerObservation",
  },
  { label: "event-loop delay p99 ms, until forceFlush() (yield)", workload: "spans-yield", key: "loopDelayP99Ms" },
  { label: "event-loop delay max ms, until forceFlush() (yield)", workload: "spans-yield", key: "loopDelayMaxMs" },
  { label: "total ms until shutdown (yield)", workload: "spans-yield", key: "totalMs", target: 1.0 },
  { label: "total ms until shutdown (burst)", workload: "spans-burst", key: "totalMs", target: 1.0 },
  { label: "CPU ms (yield)", workload: "spans-yield", key: "cpuMs", target: 1.0 },
  { label: "CPU ms (burst)", workload: "spans-burst", key: "cpuMs", target: 1.0 },
  ...(["spans-yield", "spans-burst"] as const).flatMap((w): Metric[] => {
    const p = w === "spans-yield" ? "yield" : "burst";
    return [
      {
        label: `spans at forceFlush (${p})`,
        workload: w,
        key: "spansAtFlush",
        absolute: (v, e) => v === e,
        absoluteLabel: "all",
      },
      {
        label: `spans after shutdown (${p})`,
        workload: w,
        key: "spansAtEnd",
        absolute: (v, e) => v === e,
        absoluteLabel: "all",
      },
      { label: `spans lost (${p})`, workload: w, key: "spansLost", absolute: (v) => v === 0, absoluteLabel: "0" },
      { label: `span requests (${p})`, workload: w, key: "requests" },
      { label: `bytes on the wire (${p})`, workload: w, key: "bytes" },
      { label: `bytes/span (${p})`, workload: w, key: "bytesPerSpan", target: 1.0 },
      { label: `peak RSS MB (${p})`, workload: w, key: "peakRssMb", target: 1.0 },
      { label: `log lines (${p})`, workload: w, key: "logLines" },
      { label: `involuntary context switches (${p})`, workload: w, key: "involuntarySwitches" },
    ];
  }),
  { label: "score create() µs", workload: "scores", key: "createUsPerScore", target: 1.0 },
  { label: "score create() thread-CPU µs", workload: "scores", key: "createCpuUsPerScore", target: 1.0 },
  {
    label: "scores at flush()",
    workload: "scores",
    key: "scoresAtFlush",
    absolute: (v, e) => v === e,
    absoluteLabel: "all",
  },
  { label: "scores lost", workload: "scores", key: "scoresLost", absolute: (v) => v === 0, absoluteLabel: "0" },
  {
    label: "score requests",
    workload: "scores",
    key: "requests",
    absolute: (v, e) => v === e / 100,
    absoluteLabel: "count/100",
  },
  { label: "score bytes", workload: "scores", key: "bytes" },
  { label: "score flush() ms, first call to resolution", workload: "scores", key: "flushMs", target: 1.1 },
  { label: "score flush() CPU ms (process)", workload: "scores", key: "flushCpuMs" },
  { label: "score flush() app-thread CPU ms", workload: "scores", key: "flushThreadCpuMs" },
  { label: "total ms until shutdown (scores)", workload: "scores", key: "totalMs" },
  { label: "CPU ms (scores)", workload: "scores", key: "cpuMs" },
  { label: "peak RSS MB (scores)", workload: "scores", key: "peakRssMb" },
  { label: "cold import ms", workload: "static", key: "importMs", target: 1.1 },
  { label: "entry bundle gzip bytes", workload: "static", key: "bundleGzipBytes", target: 1.0 },
  { label: "chunks loaded on first use, gzip bytes", workload: "static", key: "bundleLazyGzipBytes" },
  { label: "one-file bundle gzip bytes", workload: "static", key: "bundleOneFileGzipBytes" },
  { label: "install bytes", workload: "static", key: "installBytes", target: 1.0 },
];

const LABELS: Record<string, string> = {
  otel: "floor (raw OTel)",
  v5: "v5 (npm)",
  "v5-gzip": "v5 + gzip env",
  svc: "svc v6",
  langsmith: "LangSmith (npm)",
  openinference: "OpenInference (raw OTel, protobuf)",
};

function buildReport(rows: Record<string, Record<string, Row[]>>, statics: Record<string, Record<string, number>>) {
  const names = CONTENDERS;
  const header = ["metric", ...names.map((n) => LABELS[n] ?? n), "v5/floor", "v6/floor", "target", "v6 met"];
  const lines = [header, header.map(() => "---")];
  const summary: Record<string, Record<string, unknown>> = {};
  for (const m of METRICS) {
    const values: Record<string, Summary | undefined> = {};
    for (const n of names) {
      if (m.workload === "static") {
        const v = statics[n]?.[m.key];
        values[n] = v === undefined ? undefined : { median: v, min: v, max: v };
      } else values[n] = summarise(rows[n]?.[m.workload] ?? [], m.key);
    }
    const expected = m.workload === "scores" ? SCORES : TRACES * OBSERVATIONS_PER_TRACE;
    const ratio = (n: string) => {
      const floor = values.otel?.median;
      const v = values[n]?.median;
      return floor && v !== undefined ? v / floor : undefined;
    };
    let met = "";
    const svc = values.svc;
    if (svc && m.target !== undefined) met = ratio("svc")! <= m.target ? "yes" : "NO";
    if (svc && m.absolute) {
      const all = (rows.svc?.[m.workload] ?? []).map((r) => r[m.key]).filter((x): x is number => typeof x === "number");
      met = all.length > 0 && all.every((v) => m.absolute!(v, expected)) ? "yes" : "NO";
    }
    if (!svc) met = "n/a";
    const target = m.target !== undefined ? `≤ ${m.target}×` : (m.absoluteLabel ?? "");
    const runs = m.workload === "static" ? 1 : RUNS;
    const r5 = ratio("v5");
    const r6 = ratio("svc");
    lines.push([
      m.label,
      ...names.map((n) => cell(values[n], runs)),
      m.target !== undefined && r5 !== undefined ? `${r5.toFixed(2)}×` : "",
      m.target !== undefined && r6 !== undefined ? `${r6.toFixed(2)}×` : "",
      target,
      met,
    ]);
    summary[m.label] = { ...values, v5Ratio: r5, v6Ratio: r6, target, met };
  }
  const table = lines.map((l) => `| ${l.join(" | ")} |`).join("\n");
  return { table, summary };
}

await main();
