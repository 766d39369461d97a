// The memory bound of the span queue: 110,000 spans of about 10 KB each, with default settings, against a server that
// accepts connections and never answers. Prints the peak resident set size of the SDK's process, what the queue held
// and what it dropped, and the load average when it started.
//   node memory-bound.ts [--spans 110000] [--kb 10] [--protocol http/json|http/protobuf] [--queue-mb N]
//                        [--text ascii,cjk,emoji,surrogate,control] (one child process per kind of text, in turn)
//                        [--runs N] (each kind N times) [--burners N] (N processes spinning on the CPU beside each run)
//                        [--hold-mb N] (no SDK: a processor that keeps ended spans until their text reaches N MB)
// (after a build of @svc/*). BENCH_NODE_FLAGS="--trace-gc" passes flags to the SDK's process; BENCH_MEMORY_DETAIL=1
// prints its process.memoryUsage() at the end. Run each kind a few times, with and without burners, and read the
// highest figure.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    spans: { type: "string", default: "110000" },
    kb: { type: "string", default: "10" },
    protocol: { type: "string", default: "http/json" },
    /** maxQueueBytes in MiB, instead of the default. */
    "queue-mb": { type: "string" },
    /** Instead of the SDK, a span processor that keeps ended spans until their text reaches this many MB: the control. */
    "hold-mb": { type: "string" },
    /** Kinds of text the spans carry, each in a process of its own (see TEXT_KINDS). */
    text: { type: "string", default: "ascii,cjk,emoji,surrogate,control" },
    /** Runs of each kind of text. */
    runs: { type: "string", default: "1" },
    /** Processes that spin on the CPU while each run lasts: a busy machine, on which the collector falls behind. */
    burners: { type: "string", default: "0" },
    child: { type: "boolean", default: false },
  },
});
/**
 * The character each kind of text repeats: ASCII (one byte in V8 and in the body), CJK (two bytes in V8, three in
 * UTF-8), emoji (surrogate pairs: four UTF-8 bytes per two code units), lone surrogates (six bytes each in OTLP/JSON,
 * `\ud800`) and control characters (one byte in V8, six in OTLP/JSON, `\u0001`).
 */
const TEXT_KINDS: Record<string, string> = {
  ascii: "x",
  cjk: "\u4e2d",
  emoji: "\u{1f600}",
  surrogate: "\ud800",
  control: "\u0001",
};
/** Spans created between two turns of the event loop, so that the queue's sends start while spans keep coming. */
const SPANS_PER_TURN = 1_000;
/** Longest the child may run. */
const CHILD_LIMIT_MS = 300_000;

async function child(): Promise<void> {
  const { BasicTracerProvider } = await import("@opentelemetry/sdk-trace-base");
  const { SvcSpanProcessor } = await import("@svc/otel");
  const kind = TEXT_KINDS[values.text] ?? "x";
  const processor = values["hold-mb"]
    ? holdingProcessor(Number(values["hold-mb"]) * 1024 * 1024, kind === "x" || kind === "\u0001" ? 1 : 2)
    : new SvcSpanProcessor({
        baseUrl: process.env.SINK_URL,
        publicKey: "pk-bench",
        secretKey: "sk-bench-memory",
        protocol: values.protocol as "http/json" | "http/protobuf",
        ...(values["queue-mb"] ? { maxQueueBytes: Number(values["queue-mb"]) * 1024 * 1024 } : {}),
      });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("svc-sdk");
  const count = Number(values.spans);
  // 1,024 characters per KB (code units: an emoji is two).
  const text = kind.repeat((Number(values.kb) * 1024) / kind.length);
  // The other kinds as they are (JSON.stringify would escape lone surrogates and control characters): decoded from
  // their UTF-16 code units, with the span's number written over the first ones, one allocation per span as for ASCII.
  const units = Buffer.from(text, "utf16le");
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    // A new flat string per span, as each span of an application carries its own input (for ASCII, JSON text).
    let input: string;
    if (kind === "x") input = JSON.stringify({ i, text });
    else {
      units.write(String(i).padStart(6, "0"), "utf16le");
      input = units.toString("utf16le");
    }
    tracer.startSpan(`span-${i}`, { attributes: { "svc.observation.input": input } }).end();
    if (i % SPANS_PER_TURN === SPANS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  const health = processor.health();
  const result = {
    spans: count,
    spanKb: Number(values.kb),
    text: values.text,
    protocol: values.protocol,
    createMs: Math.round(performance.now() - started),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    queued: health.queued,
    queuedMb: Math.round(health.queuedBytes / 1024 / 1024),
    inFlight: health.inFlight,
    dropped: health.dropped.queueFull,
    memory: process.env.BENCH_MEMORY_DETAIL ? process.memoryUsage() : undefined,
  };
  process.stdout.write(`bench:${JSON.stringify(result)}\n`);
  process.exit(0);
}

/**
 * The control: keeps ended spans, with nothing else, until the text of their input (as V8 holds it, `unitBytes` per
 * UTF-16 unit: one for ASCII and control characters, two for the rest) reaches `maxBytes`, and drops the rest: what
 * the same run peaks at when nothing but this much is held.
 */
function holdingProcessor(maxBytes: number, unitBytes: number) {
  const held: unknown[] = [];
  let bytes = 0;
  let dropped = 0;
  return {
    onStart() {},
    onEnd(span: { attributes: Record<string, unknown> }) {
      const input = String(span.attributes["svc.observation.input"]);
      const size = input.length * unitBytes;
      if (bytes + size > maxBytes) dropped++;
      else {
        held.push(span);
        bytes += size;
      }
    },
    forceFlush: async () => {},
    shutdown: async () => {},
    health: () => ({ queued: held.length, queuedBytes: bytes, inFlight: 0, dropped: { queueFull: dropped } }),
  };
}

async function parent(): Promise<void> {
  const kinds = values.text.split(",");
  for (const kind of kinds)
    if (!(kind in TEXT_KINDS)) throw new Error(`unknown --text ${kind}; one of ${Object.keys(TEXT_KINDS).join(", ")}`);
  for (let run = 0; run < Number(values.runs); run++) for (const kind of kinds) await runChild(kind);
}

/** Starts `--burners` processes that spin on the CPU until killed. */
function startBurners(): ChildProcess[] {
  return Array.from({ length: Number(values.burners) }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
}

async function runChild(kind: string): Promise<void> {
  const server: Server = createServer(() => {
    // Accepts the request and never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const args = [
    import.meta.filename,
    "--child",
    "--spans",
    values.spans,
    "--kb",
    values.kb,
    "--protocol",
    values.protocol,
    "--text",
    kind,
  ];
  if (values["queue-mb"]) args.push("--queue-mb", values["queue-mb"]);
  if (values["hold-mb"]) args.push("--hold-mb", values["hold-mb"]);
  // The load average of the last minute as the run starts: how busy the machine was, burners aside.
  const load = loadavg()[0]?.toFixed(1);
  const burners = startBurners();
  const proc = spawn(process.execPath, [...(process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? []), ...args], {
    env: { ...process.env, SINK_URL: `http://127.0.0.1:${port}`, SVC_LOG_LEVEL: "ERROR" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const limit = setTimeout(() => proc.kill("SIGKILL"), CHILD_LIMIT_MS);
  let out = "";
  proc.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  clearTimeout(limit);
  for (const burner of burners) burner.kill("SIGKILL");
  server.closeAllConnections();
  server.close();
  if (process.env.BENCH_MEMORY_DETAIL) console.log(out);
  const line = out.split("\n").find((l) => l.startsWith("bench:"));
  if (!line || code !== 0) throw new Error(`the child ended with ${code} and printed no result`);
  const r = JSON.parse(line.slice("bench:".length));
  console.log(
    `${r.spans} spans of ${r.spanKb} KB of ${r.text} text (${r.protocol}), server silent, load average ${load}, ` +
      `${burners.length} burners: peak RSS ${r.peakRssMb} MB; ` +
      `${r.queued} spans queued (${r.queuedMb} MiB estimated), ${r.inFlight} in flight, ${r.dropped} dropped (queue full)`,
  );
}

await (values.child ? child() : parent());
