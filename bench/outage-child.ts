// The SDK side of the outage scenario, in its own process so that its memory is measured alone. Prints one JSON
// line per event on stdout (prefixed `bench:`); the SDK's own log lines go to stdout and stderr as configured.
//   node outage-child.ts outage      500 spans/s and 50 scores/s for OUTAGE_SECONDS, then waits for delivery
//   node outage-child.ts deadlines   flush, shutdown and prompt.get against a server that never answers
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startObservation } from "@svc/tracing";
import { INPUTS, METADATA, OUTPUTS, scoreBody } from "./payload.ts";

const [mode = "outage"] = process.argv.slice(2);
const target = { baseUrl: process.env.SINK_URL ?? "", publicKey: "pk-bench", secretKey: "sk-bench-outage" };
const seconds = Number(process.env.OUTAGE_SECONDS ?? "60");
const TICK_MS = 100;
/** Per tick of 100 ms: 5 traces of 10 observations (500 spans/s) and 5 scores (50 scores/s). */
const TRACES_PER_TICK = 5;
const SCORES_PER_TICK = 5;
const DELIVERY_LIMIT_MS = 300_000;

function report(event: string, data: Record<string, unknown> = {}): void {
  process.stdout.write(`bench:${JSON.stringify({ event, ...data })}\n`);
}

/** One trace of 10 observations with ~1 KB input and output each, as in the throughput workloads. */
function trace(i: number): void {
  const attrs = (k: number) => ({ input: INPUTS[k % INPUTS.length], metadata: METADATA });
  const out = (k: number) => ({ output: OUTPUTS[k % OUTPUTS.length] });
  const k = i * 10;
  const root = startObservation("agent", attrs(k), { asType: "agent" });
  for (let s = 0; s < 3; s++) {
    const chain = root.startObservation(`step-${s}`, attrs(k + 3 * s + 1), { asType: "chain" });
    chain
      .startObservation("llm", attrs(k + 3 * s + 2), { asType: "generation" })
      .update(out(k + 3 * s + 2))
      .end();
    chain
      .startObservation("tool", attrs(k + 3 * s + 3), { asType: "tool" })
      .update(out(k + 3 * s + 3))
      .end();
    chain.update(out(k + 3 * s + 1)).end();
  }
  root.update(out(k)).end();
}

/** Samples the resident set size until stopped; returns the peak. */
function memorySampler(): { stop(): { peakRss: number; peakHeap: number } } {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakRss, peakHeap };
    },
  };
}

async function outage(): Promise<void> {
  const processor = new SvcSpanProcessor(target);
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  setSvcTracerProvider(provider);
  const svc = new SvcClient(target);
  globalThis.gc?.();
  const baseline = process.memoryUsage();
  const memory = memorySampler();
  report("start", { rss: baseline.rss, heapUsed: baseline.heapUsed });

  let ticks = 0;
  let traces = 0;
  let scores = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < TRACES_PER_TICK; i++) trace(traces++);
      for (let i = 0; i < SCORES_PER_TICK; i++) svc.score.create(scoreBody(scores++, "a".repeat(32)));
      if (++ticks >= (seconds * 1000) / TICK_MS) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  report("load-done", {
    spans: traces * 10,
    scores,
    health: { spans: processor.health(), scores: svc.health().score },
  });

  // Wait, without a flush, until the queues have delivered (or dropped) what they hold: the time the SDK takes by
  // itself once the server is back.
  const waitStart = performance.now();
  for (;;) {
    const s = processor.health();
    const c = svc.health().score;
    if (s.queued + s.inFlight + c.queued + c.inFlight === 0) break;
    if (performance.now() - waitStart > DELIVERY_LIMIT_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const peak = memory.stop();
  report("drained", {
    waitedMs: performance.now() - waitStart,
    peakRss: peak.peakRss,
    peakHeap: peak.peakHeap,
    growthRss: peak.peakRss - baseline.rss,
    health: { spans: processor.health(), scores: svc.health().score },
  });
  await Promise.all([svc.shutdown(), provider.shutdown()]);
  report("shutdown");
}

/** Times a call against a server that accepts connections and never answers. */
async function timed(what: string, fn: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await fn();
  report("timed", { what, ms: Math.round(performance.now() - start) });
}

async function deadlines(): Promise<void> {
  const processor = new SvcSpanProcessor(target);
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  setSvcTracerProvider(provider);
  const svc = new SvcClient(target);
  for (let i = 0; i < 10; i++) trace(i);
  for (let i = 0; i < 20; i++) svc.score.create(scoreBody(i, "a".repeat(32)));
  const started = performance.now();
  await Promise.all([
    timed("processor.forceFlush()", () => processor.forceFlush()),
    timed("svc.flush()", () => svc.flush()),
    timed("svc.prompt.get() with a fallback", () => svc.prompt.get("greeting", { fallback: "Hello" })),
  ]);
  await Promise.all([
    timed("processor.shutdown()", () => processor.shutdown()),
    timed("svc.shutdown()", () => svc.shutdown()),
  ]);
  report("done", { ms: Math.round(performance.now() - started) });
}

await (mode === "deadlines" ? deadlines() : outage());
