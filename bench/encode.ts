// The encoding of export request bodies alone, on the app thread: v6's encoder against OpenTelemetry's serializers
// (what the floor's exporter runs), on the spans of the spans workload in the processor's batches of 512.
//   node encode.ts                 (after a build: `pnpm bench:encode` builds first)
//   node encode.ts --rounds 20 --traces 2000
// Per round each way encodes every batch once, the ways taking turns; the thread CPU of each pass is reported as
// median and min over the rounds, and v6 / floor as the median of the per-round ratios.

import { parseArgs } from "node:util";
import { gzip } from "node:zlib";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { encodeTraces } from "@svc/tracing/internal";
import { exportedBatches } from "./exported-batches.ts";
import { threadClock } from "./thread-clock.ts";

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "12" }, traces: { type: "string", default: "2000" } },
});
const clock = threadClock();

// The spans as v6 hands them to its export stage, in its batches.
const items = await exportedBatches(Number(args.traces));
const batches = items.map((batch) => batch.map((item) => item.span as unknown as ReadableSpan));
const spanCount = batches.reduce((n, batch) => n + batch.length, 0);

function gzipped(body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => gzip(body, (error, out) => (error ? reject(error) : resolve(out.length))));
}

/** Each way: encodes every batch once and returns the bytes made. */
const WAYS: Record<string, () => Promise<number>> = {
  "floor JSON": async () => batches.reduce((n, b) => n + (JsonTraceSerializer.serializeRequest(b)?.byteLength ?? 0), 0),
  "v6 JSON": async () => {
    let n = 0;
    for (const b of items) n += (await encodeTraces(b, "http/json", "none")).bytes.byteLength;
    return n;
  },
  "floor JSON + gzip": async () => {
    let n = 0;
    for (const b of batches) n += await gzipped(JsonTraceSerializer.serializeRequest(b) ?? new Uint8Array());
    return n;
  },
  "v6 JSON + gzip": async () => {
    let n = 0;
    for (const b of items) n += (await encodeTraces(b, "http/json", "gzip")).bytes.byteLength;
    return n;
  },
  "floor protobuf": async () =>
    batches.reduce((n, b) => n + (ProtobufTraceSerializer.serializeRequest(b)?.byteLength ?? 0), 0),
  "v6 protobuf": async () => {
    let n = 0;
    for (const b of items) n += (await encodeTraces(b, "http/protobuf", "none")).bytes.byteLength;
    return n;
  },
};

const cpuMs: Record<string, number[]> = {};
const bytes: Record<string, number> = {};
for (let round = 0; round < Number(args.rounds); round++) {
  const names = Object.keys(WAYS);
  if (round % 2 === 1) names.reverse();
  for (const name of names) {
    const before = clock.nowUs();
    bytes[name] = await (WAYS[name] as () => Promise<number>)();
    const times = cpuMs[name] ?? [];
    times.push((clock.nowUs() - before) / 1000);
    cpuMs[name] = times;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
console.log(`${spanCount} spans in ${batches.length} batches, ${args.rounds} rounds, thread clock: ${clock.kind}`);
console.log("| way | app-thread CPU ms, median (min) | bytes | v6 / floor |");
console.log("| --- | --- | --- | --- |");
for (const name of Object.keys(WAYS)) {
  const times = cpuMs[name] as number[];
  const floor = name.startsWith("v6") ? cpuMs[name.replace("v6", "floor")] : undefined;
  const ratio = floor ? `${median(times.map((t, i) => t / (floor[i] as number))).toFixed(2)}×` : "";
  const cell = `${median(times).toFixed(1)} (${Math.min(...times).toFixed(1)})`;
  console.log(`| ${name} | ${cell} | ${(bytes[name] as number).toLocaleString("en")} | ${ratio} |`);
}
