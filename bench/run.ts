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
import { ALL_WORKLOADS, buildReport, median, type Row, type Workload } from "./report.ts";
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

  const report = buildReport(rows, statics, {
    contenders: CONTENDERS,
    runs: RUNS,
    spans: TRACES * OBSERVATIONS_PER_TRACE,
    scores: SCORES,
  });
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

await main();
