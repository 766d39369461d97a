// Export work on the application's thread against a worker thread: the spans workload's 20,000 ended spans, as v6
// queues them, encoded (OTLP/JSON) and gzipped in batches of the processor's batch size, either as the export stage
// does it today (the core's encoder on the app thread, gzip on the libuv thread pool) or handed to a
// `node:worker_threads` worker that encodes and gzips and transfers the body back. One fresh process per mode and
// run, modes in turns; medians. Every body is decoded and compared with the app thread's encoding of its batch.
//   node worker-export.ts                   (after a build: `pnpm build:svc`)
//   node worker-export.ts --runs 5 --modes app,app-flush,worker,worker-sync --json > rows.json
//   node worker-export.ts --from rows.json    (the table of those rows)
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MODES, type Mode } from "./worker-export-thread.ts";

if (process.argv.includes("--child")) {
  await import("./worker-export-child.ts");
} else {
  await runner();
}

interface ChildRow {
  mode: Mode;
  spans: number;
  batches: number;
  bodyBytes: number;
  checked: boolean;
  appThreadCpuMs: number;
  processCpuMs: number;
  wallMs: number;
  stallMaxMs: number;
  handoverMaxMs: number;
  handoverUsPerBatch: number;
  peakRssDeltaMb: number;
  peakHeapDeltaMb: number;
  workerThreadCpuMs: number;
  workerPeakHeapMb: number;
  startup?: { wallMs: number; processCpuMs: number; rssMb: number; workerHeapMb: number };
  encodeOnlyUsPerBatch: number;
}

async function runner(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      traces: { type: "string", default: "2000" },
      modes: { type: "string", default: "app,worker,worker-sync" },
      json: { type: "boolean", default: false },
      from: { type: "string" },
    },
  });
  if (args.from) {
    // The table again, from the rows of an earlier run's --json output.
    const rows = JSON.parse(readFileSync(args.from, "utf8")) as ChildRow[];
    const modes = MODES.filter((mode) => rows.some((row) => row.mode === mode));
    print(rows, modes, Math.max(...modes.map((mode) => rows.filter((row) => row.mode === mode).length)));
    return;
  }
  const runs = Number(args.runs);
  const modes = args.modes.split(",") as Mode[];
  for (const mode of modes) if (!MODES.includes(mode)) throw new Error(`unknown mode ${mode}; modes: ${MODES}`);
  const script = fileURLToPath(import.meta.url);
  const rows: ChildRow[] = [];
  for (let run = 0; run < runs; run++) {
    // The order rotates every run, so no mode always runs first (or right after another) on a shared machine.
    const order = modes.map((_, i) => modes[(i + run) % modes.length] as Mode);
    for (const mode of order) {
      const child = spawnSync(process.execPath, ["--expose-gc", script, "--child", mode, "--traces", args.traces], {
        encoding: "utf8",
        timeout: 120_000,
      });
      const line = child.stdout.trim().split("\n").at(-1) ?? "";
      if (child.status !== 0 || !line.startsWith("{")) {
        process.stderr.write(child.stderr);
        throw new Error(`worker-export: the ${mode} child failed (status ${child.status}): ${line}`);
      }
      const row = JSON.parse(line) as ChildRow & { error?: string };
      if (row.error || !row.checked) throw new Error(`worker-export: ${mode}: ${row.error ?? "bodies did not check"}`);
      rows.push(row);
    }
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  print(rows, modes, runs);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function cell(values: number[]): string {
  const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
  return `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
}

function print(rows: ChildRow[], modes: Mode[], runs: number): void {
  const of = (mode: Mode) => rows.filter((r) => r.mode === mode);
  const first = rows[0] as ChildRow;
  console.log(
    `${first.spans} spans in ${first.batches} batches, ${runs} run(s) per mode, one process each; median (min–max)\n`,
  );
  const metrics: [string, (r: ChildRow) => number | undefined][] = [
    ["app-thread CPU ms", (r) => r.appThreadCpuMs],
    ["  per batch, µs", (r) => (r.appThreadCpuMs * 1000) / r.batches],
    [
      "  handover per batch (records + postMessage), µs",
      (r) => (r.mode.startsWith("worker") ? r.handoverUsPerBatch : undefined),
    ],
    [
      "  encoding alone per batch (no gzip), µs",
      (r) => (r.mode.startsWith("app") ? r.encodeOnlyUsPerBatch : undefined),
    ],
    ["worker thread CPU ms", (r) => (r.mode.startsWith("worker") ? r.workerThreadCpuMs : undefined)],
    ["process CPU ms (all threads)", (r) => r.processCpuMs],
    ["wall ms until every body is ready", (r) => r.wallMs],
    ["longest app-thread stall ms (event-loop delay max, second pass)", (r) => r.stallMaxMs],
    ["longest single handover ms", (r) => (r.mode.startsWith("worker") ? r.handoverMaxMs : undefined)],
    ["peak RSS over the start, MB", (r) => r.peakRssDeltaMb],
    ["peak app-thread heap over the start, MB", (r) => r.peakHeapDeltaMb],
    ["worker peak heap used, MB", (r) => (r.mode.startsWith("worker") ? r.workerPeakHeapMb : undefined)],
    ["worker start-up wall ms (spawn + module load)", (r) => r.startup?.wallMs],
    ["worker start-up process CPU ms", (r) => r.startup?.processCpuMs],
    ["worker start-up RSS, MB", (r) => r.startup?.rssMb],
    ["body bytes (gzip), all batches", (r) => r.bodyBytes],
  ];
  console.log(`| metric | ${modes.join(" | ")} |`);
  console.log(`| --- |${modes.map(() => " --- |").join("")}`);
  for (const [name, read] of metrics) {
    const cells = modes.map((mode) => {
      const values = of(mode)
        .map(read)
        .filter((v): v is number => v !== undefined);
      return values.length ? cell(values) : "";
    });
    if (cells.some((c) => c)) console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
}
