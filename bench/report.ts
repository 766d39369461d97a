// The results table of the performance suite: each metric of every contender, and v6 and v5 against the floor.

export const ALL_WORKLOADS = ["spans-yield", "spans-burst", "scores"] as const;
export type Workload = (typeof ALL_WORKLOADS)[number];
/** One run's measurements, by metric key. */
export type Row = Record<string, number | boolean | string | string[]>;

export function median(xs: number[]): number {
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

/** What a run compares: its contenders, its runs per workload, and the spans and scores each run should deliver. */
export interface ReportShape {
  contenders: string[];
  runs: number;
  spans: number;
  scores: number;
}

/** The results table (markdown) and its summary by metric, v6 and v5 against the floor. */
export function buildReport(
  rows: Record<string, Record<string, Row[]>>,
  statics: Record<string, Record<string, number>>,
  shape: ReportShape,
) {
  const names = shape.contenders;
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
    const expected = m.workload === "scores" ? shape.scores : shape.spans;
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
    const runs = m.workload === "static" ? 1 : shape.runs;
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
