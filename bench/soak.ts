// The soak: a long, steady load of spans through v6 with its defaults against a server that answers every traces
// request late. Does the SDK keep up, bounded in memory, without losing or repeating a span?
//   node soak.ts [--spans 1000000] [--rate 5000] [--delay-ms 500] [--deliver-limit-s 300]   (after a build of @svc/*)
import { parseArgs } from "node:util";
import { type ChildEvent, mb, printSdkLines, runScenarioChild, watchDelivery } from "./scenario.ts";
import { startSink } from "./sink.ts";

const { values } = parseArgs({
  options: {
    spans: { type: "string", default: "1000000" },
    rate: { type: "string", default: "5000" },
    "delay-ms": { type: "string", default: "500" },
    "deliver-limit-s": { type: "string", default: "300" },
  },
});
const totalSpans = Number(values.spans);
const rate = Number(values.rate);
const delayMs = Number(values["delay-ms"]);
const deliverLimitMs = Number(values["deliver-limit-s"]) * 1000;
for (const [name, value] of Object.entries({ spans: totalSpans, rate, "delay-ms": delayMs })) {
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number, not ${String(value)}`);
}
const seconds = totalSpans / rate;

const started = performance.now();
// Decoding as requests arrive, so that the sink holds counts rather than a million spans' bodies.
const sink = await startSink({ deferDecoding: false, answerDelayMs: delayMs });
let loadDoneAt = 0;
let deliveredAt = 0;
let idleAt = 0;
let loadDoneSpans = 0;
let stopWatching = () => {};
const events: ChildEvent[] = [];
console.log(
  `soak: ${totalSpans.toLocaleString("en-US")} spans at ${rate.toLocaleString("en-US")} spans/s (${seconds.toFixed(0)} s), ` +
    `every traces request answered after ${delayMs} ms`,
);
const progress = setInterval(() => {
  const stats = sink.stats();
  console.log(
    `  ${((performance.now() - started) / 1000).toFixed(0)} s: ${stats.uniqueSpans.toLocaleString("en-US")} spans at the sink, ` +
      `${stats.spanRequests} requests`,
  );
}, 20_000);
const { sdkLines, code } = await runScenarioChild(
  "load",
  sink.url,
  { seconds, spansPerSecond: rate, scoresPerSecond: 0 },
  (event, tell) => {
    events.push(event);
    if (event.event === "load-done") {
      loadDoneAt = performance.now();
      loadDoneSpans = Number(event.spans);
      stopWatching = watchDelivery(sink, { spans: Number(event.spans), scores: 0 }, deliverLimitMs, (at) => {
        deliveredAt = at ?? 0;
        tell();
      });
    }
    // Nothing left waiting or in flight in the SDK, though not everything arrived: what is missing was dropped.
    if (event.event === "idle") {
      idleAt = performance.now();
      stopWatching();
      if (deliveredAt === 0 && sink.stats().uniqueSpans >= loadDoneSpans) deliveredAt = idleAt;
      tell();
    }
  },
  seconds * 1000 + deliverLimitMs + 120_000,
);
clearInterval(progress);
stopWatching();
const stats = sink.stats();
await sink.close();

const loadDone = events.find((e) => e.event === "load-done");
const drained = events.find((e) => e.event === "drained");
const dropped = Object.entries((events.find((e) => e.event === "idle")?.dropped ?? {}) as Record<string, number>)
  .filter(([, n]) => n > 0)
  .map(([reason, n]) => `${n.toLocaleString("en-US")} (${reason})`);
const sent = Number(loadDone?.spans ?? 0);
const loadSeconds = Number(loadDone?.loadMs ?? 0) / 1000;
console.log(`\n## Soak: ${sent.toLocaleString("en-US")} spans, every traces request answered after ${delayMs} ms\n`);
console.log("| | |\n| --- | --- |");
console.log(
  `| spans sent | ${sent.toLocaleString("en-US")} in ${loadSeconds.toFixed(1)} s (${(sent / loadSeconds).toFixed(0)}/s) |`,
);
console.log(`| delivered (unique, at the sink) | ${stats.uniqueSpans.toLocaleString("en-US")} |`);
console.log(`| lost | ${(sent - stats.uniqueSpans).toLocaleString("en-US")} |`);
console.log(`| dropped by the SDK, by its own count | ${dropped.length > 0 ? dropped.join(", ") : "0"} |`);
console.log(`| duplicates at the sink | ${stats.duplicateSpans} |`);
console.log(`| requests, bytes on the wire | ${stats.spanRequests}, ${mb(stats.spanBytes)} |`);
console.log(
  `| peak memory of the SDK process | ${mb(drained?.peakRss)} resident (sampled every 100 ms; maxRSS ${mb(drained?.maxRss)}), ${mb(drained?.peakHeap)} heap; growth over the start ${mb(drained?.growthRss)} |`,
);
console.log(
  `| event-loop delay during the load | p99 ${Number(loadDone?.loopDelayP99Ms).toFixed(1)} ms, max ${Number(loadDone?.loopDelayMaxMs).toFixed(1)} ms |`,
);
const after = (at: number) => `${((at - loadDoneAt) / 1000).toFixed(2)} s`;
console.log(
  `| from the end of the load to everything delivered | ${
    deliveredAt
      ? after(deliveredAt)
      : idleAt
        ? `never (what was not dropped: ${after(idleAt)})`
        : `not within ${deliverLimitMs / 1000} s`
  } |`,
);
console.log(`| whole soak, until the SDK process ended | ${((performance.now() - started) / 1000).toFixed(0)} s |`);
console.log("");
printSdkLines(sdkLines);
if (stats.malformed.length > 0) console.log(`- malformed requests: ${stats.malformed.join("; ")}`);
if (code !== 0 || !deliveredAt || stats.duplicateSpans > 0 || stats.malformed.length > 0) {
  console.log(
    `\nSOAK PROBLEM: child exit ${code}, ${sent - stats.uniqueSpans} lost, ${stats.duplicateSpans} duplicates`,
  );
  process.exitCode = 1;
}
