// The long-isolate scenario: 10,000 requests to one Cloudflare Workers isolate (workerd through Miniflare), the SDK
// built at module scope and each request flushed in ctx.waitUntil. Does every request deliver, and does the isolate
// keep anything per request once its flush is over?
//   node long-isolate.ts [--requests 10000]   (after a build of @svc/*; installs Miniflare into .tools on first use)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { startSink } from "./sink.ts";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "10000" }, baseline: { type: "boolean", default: false } },
});
// --baseline: the same two requests per request with plain fetch and no SDK, for what workerd itself keeps.
const worker_file = values.baseline ? "long-isolate-baseline-worker.mjs" : "long-isolate-worker.mjs";
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 1) throw new Error(`--requests takes a count, not ${values.requests}`);

const root = join(import.meta.dirname, "..");
const tools = execFileSync(
  "bash",
  ["-c", 'root="$1"; source "$root/scripts/toolchain.sh"; runtime_tools', "bash", root],
  {
    encoding: "utf8",
  },
).trim();
const { Miniflare } = (await import(
  pathToFileURL(join(tools, "node_modules", "miniflare", "dist", "src", "index.js")).href
)) as {
  Miniflare: new (options: object) => { dispatchFetch(url: string): Promise<Response>; dispose(): Promise<void> };
};

const bundle = await build({
  entryPoints: [join(import.meta.dirname, worker_file)],
  bundle: true,
  write: false,
  format: "esm",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  external: ["cloudflare:*"],
  logLevel: "silent",
});
const sink = await startSink({ deferDecoding: false });
const inspectorPort = await freePort();
const worker = new Miniflare({
  inspectorPort,
  modules: true,
  script: bundle.outputFiles[0]?.text ?? "",
  compatibilityDate: "2025-09-01",
  bindings: { SVC_BASE_URL: sink.url },
});

interface Health {
  spans: { queued: number; inFlight: number; sent: number; retries: number; dropped: Record<string, number> };
  client: { score: { queued: number; inFlight: number; sent: number; dropped: Record<string, number> } };
  logged: { warn: number; error: number; last: string };
}
const health = async (): Promise<Health> =>
  (await (await worker.dispatchFetch("http://worker/health")).json()) as Health;

/** A free loopback port, for workerd's inspector. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * The JavaScript heap of the isolate in MB (fractional), after a full garbage collection, through workerd's inspector (the
 * DevTools protocol): what the isolate keeps, without what is merely not collected yet.
 */
async function isolateHeapMb(): Promise<number> {
  const socket = new WebSocket(`ws://127.0.0.1:${inspectorPort}/core:user:`);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const call = (method: string) =>
    new Promise<Record<string, number>>((resolve, reject) => {
      const mine = ++id;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), 30_000);
      socket.addEventListener("message", function listen(event) {
        const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, number> };
        if (message.id !== mine) return;
        clearTimeout(timer);
        socket.removeEventListener("message", listen);
        resolve(message.result ?? {});
      });
      socket.send(JSON.stringify({ id: mine, method }));
    });
  try {
    await call("HeapProfiler.enable");
    // workerd runs the collection when the isolate next handles an event: requests wake it until it answers.
    let collected = false;
    const collecting = call("HeapProfiler.collectGarbage").then(() => {
      collected = true;
    });
    for (let i = 0; i < 100 && !collected; i++) {
      await health();
      await Promise.race([collecting, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    await collecting;
    const { usedSize = 0 } = await call("Runtime.getHeapUsage");
    return usedSize / 1024 / 1024;
  } finally {
    socket.close();
  }
}

/** Resident memory of the workerd processes started by this one, in MB (Linux). */
function workerdRssMb(): number {
  let kb = 0;
  for (const pid of execFileSync("pgrep", ["-P", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    if (!/^Name:\s*workerd/m.test(status)) continue;
    kb += Number(status.match(/^VmRSS:\s*(\d+)/m)?.[1] ?? 0);
  }
  return Math.round(kb / 102.4) / 10;
}

const started = performance.now();
const samples: { after: number; rssMb: number; heapMb: number }[] = [];
const marks = new Set([1, 100, 1000, Math.floor(requests / 2), requests]);
for (let n = 1; n <= requests; n++) {
  const answer = await worker.dispatchFetch(`http://worker/?n=${n}`);
  await answer.text();
  if (marks.has(n)) {
    // Once the request's flush is over: what stays is what the isolate keeps.
    await health();
    samples.push({ after: n, rssMb: workerdRssMb(), heapMb: await isolateHeapMb() });
  }
}
const sentAt = performance.now();
for (let i = 0; i < 300; i++) {
  const stats = sink.stats();
  if (stats.spans >= 2 * requests && stats.scores >= requests) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const deliveredMs = performance.now() - started;
const final = values.baseline ? undefined : await health();
const stats = sink.stats();
await worker.dispose();
await sink.close();

console.log(
  `long isolate${values.baseline ? " (baseline: plain fetch, no SDK)" : ""}: ${requests.toLocaleString("en-US")} requests to one Miniflare isolate, each flushed in ctx.waitUntil`,
);
console.log(
  `  requests answered in ${((sentAt - started) / 1000).toFixed(1)} s, everything delivered after ${(deliveredMs / 1000).toFixed(1)} s`,
);
console.log(
  `  at the sink: ${stats.uniqueSpans.toLocaleString("en-US")} of ${(2 * requests).toLocaleString("en-US")} spans ` +
    `(${stats.duplicateSpans} duplicates) in ${stats.spanRequests} requests (${stats.gzipRequests} gzip), ` +
    `${stats.uniqueScores.toLocaleString("en-US")} of ${requests.toLocaleString("en-US")} scores in ${stats.scoreRequests} requests`,
);
if (final)
  console.log(
    `  in the isolate at the end: spans queued ${final.spans.queued}, in flight ${final.spans.inFlight}, sent ${final.spans.sent}, ` +
      `retries ${final.spans.retries}; scores queued ${final.client.score.queued}, in flight ${final.client.score.inFlight}, ` +
      `sent ${final.client.score.sent}; SDK log lines: ${final.logged.error} errors, ${final.logged.warn} warnings`,
  );
console.log(
  `  isolate heap after a full GC: ${samples.map((s) => `${s.heapMb.toFixed(2)} MB after ${s.after.toLocaleString("en-US")}`).join(", ")}`,
);
const [first, last] = [samples.find((s) => s.after === Math.min(1000, requests)), samples.at(-1)];
if (first && last && last.after > first.after)
  console.log(
    `  heap growth from request ${first.after.toLocaleString("en-US")} to ${last.after.toLocaleString("en-US")}: ` +
      `${(((last.heapMb - first.heapMb) * 1024 * 1024) / (last.after - first.after)).toFixed(0)} bytes per request`,
  );
console.log(
  `  workerd resident memory: ${samples.map((s) => `${s.rssMb} MB after ${s.after.toLocaleString("en-US")}`).join(", ")}`,
);
if (final?.logged.last) console.log(`  last SDK line: ${final.logged.last}`);
const lost = stats.uniqueSpans < 2 * requests || stats.uniqueScores < requests || stats.malformed.length > 0;
process.exitCode = lost || (final?.logged.error ?? 0) > 0 ? 1 : 0;
