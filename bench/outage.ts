// The outage scenario: the SDK under load while the server fails, then recovers; and how long flush, shutdown
// and prompt.get take against a server that accepts connections and never answers.
//   node outage.ts [--seconds 60] [--fault 503|refused|reset] [--skip-deadlines]   (after a build of @svc/*)
import { parseArgs } from "node:util";
import { startGate } from "./gate.ts";
import { type ChildEvent, mb, printSdkLines, runScenarioChild, watchDelivery } from "./scenario.ts";
import { startSink } from "./sink.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    fault: { type: "string", default: "503" },
    "skip-deadlines": { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const fault = values.fault as "503" | "refused" | "reset";

/** Longest wait for delivery after the server is back. */
const DELIVERY_LIMIT_MS = 300_000;

/** Longest a scenario's SDK process may run: the load, the wait for delivery, and its deadlines. */
const CHILD_LIMIT_MS = seconds * 1000 + DELIVERY_LIMIT_MS + 120_000;

async function outageScenario(): Promise<void> {
  const sink = await startSink();
  const gate = await startGate(sink, fault);
  gate.set("fail");
  let startedAt = 0;
  let recoveredAt = 0;
  let deliveredAt = 0;
  let expected = { spans: 0, scores: 0 };
  let recoveryTimer: NodeJS.Timeout | undefined;
  let stopWatching = () => {};
  const events: ChildEvent[] = [];
  const load = { seconds, spansPerSecond: 500, scoresPerSecond: 50 };
  const { sdkLines } = await runScenarioChild(
    "load",
    gate.url,
    load,
    (event, tell) => {
      events.push(event);
      if (event.event === "start") {
        startedAt = performance.now();
        recoveryTimer = setTimeout(() => {
          gate.set("forward");
          recoveredAt = performance.now();
        }, seconds * 1000);
      }
      if (event.event === "load-done") {
        expected = { spans: Number(event.spans), scores: Number(event.scores) };
        // Every 100 ms once the server is back: has the sink everything? Then the child may stop measuring.
        stopWatching = watchDelivery(
          sink,
          expected,
          DELIVERY_LIMIT_MS,
          (at) => {
            deliveredAt = at ?? 0;
            tell();
          },
          { ready: () => recoveredAt !== 0 },
        );
      }
    },
    CHILD_LIMIT_MS,
  );
  clearTimeout(recoveryTimer);
  stopWatching();
  const stats = sink.stats();
  const drained = events.find((e) => e.event === "drained") ?? { event: "drained" };
  console.log(`\n## Outage: ${seconds} s of ${fault === "503" ? "HTTP 503" : fault} at 500 spans/s and 50 scores/s\n`);
  console.log("| | spans | scores |\n| --- | --- | --- |");
  console.log(`| sent during the outage | ${expected.spans} | ${expected.scores} |`);
  console.log(`| delivered (unique, at the sink) | ${stats.uniqueSpans} | ${stats.uniqueScores} |`);
  console.log(`| lost | ${expected.spans - stats.uniqueSpans} | ${expected.scores - stats.uniqueScores} |`);
  console.log(`| duplicates at the sink | ${stats.duplicateSpans} | ${stats.scores - stats.uniqueScores} |`);
  console.log("");
  console.log(
    `- peak memory of the SDK process: ${mb(drained.peakRss)} resident, ${mb(drained.peakHeap)} heap; ` +
      `growth during the outage ${mb(drained.growthRss)} resident`,
  );
  console.log(
    `- time to deliver everything after the server was back: ${deliveredAt ? `${((deliveredAt - recoveredAt) / 1000).toFixed(1)} s` : "not within the limit"}` +
      ` (load ran ${((recoveredAt - startedAt) / 1000).toFixed(1)} s)`,
  );
  printSdkLines(sdkLines);
  if (stats.malformed.length > 0) console.log(`- malformed requests: ${stats.malformed.join("; ")}`);
  await gate.close();
  await sink.close();
}

async function deadlineScenario(): Promise<void> {
  const sink = await startSink();
  const gate = await startGate(sink, fault);
  gate.set("silent");
  const rows: string[] = [];
  const started = performance.now();
  const { sdkLines } = await runScenarioChild(
    "deadlines",
    gate.url,
    undefined,
    (event) => {
      if (event.event === "timed")
        rows.push(`| \`${String(event.what)}\` | ${(Number(event.ms) / 1000).toFixed(2)} s |`);
    },
    CHILD_LIMIT_MS,
  );
  console.log("\n## Deadlines against a server that accepts connections and never answers (default settings)\n");
  console.log("| call | returned after |\n| --- | --- |");
  for (const row of rows) console.log(row);
  console.log(`\n- the process ended ${((performance.now() - started) / 1000).toFixed(1)} s after it started`);
  printSdkLines(sdkLines);
  await gate.close();
  await sink.close();
}

await outageScenario();
if (!values["skip-deadlines"]) await deadlineScenario();
