import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";
import { spillDir, startSpillServer } from "../support/spill.ts";

/**
 * A process whose globals are those a runtime without a disk to trust sets (`setup`), with a span processor and a
 * client given a spill directory, both made twice; the queues are tiny and the server is down.
 */
function program(setup: string): string {
  return `
    ${setup}
    const { BasicTracerProvider } = await import("@opentelemetry/sdk-trace-base");
    const { SvcSpanProcessor } = await import("@svc/otel");
    const { SvcClient } = await import("@svc/client");
    const options = {
      baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-rt", secretKey: "sk-rt-secret", flushTimeout: 1, timeout: 1,
      spillDir: process.env.DIR,
    };
    for (let round = 0; round < 2; round++) {
      const processor = new SvcSpanProcessor({ ...options, maxQueueSize: 2, flushAt: 100, flushInterval: 3600 });
      const svc = new SvcClient({ ...options, scoreMaxQueueSize: 2, flushAt: 100, flushInterval: 3600 });
      const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("svc-sdk");
      for (let i = 0; i < 5; i++) tracer.startSpan("s" + i).end();
      for (let i = 0; i < 5; i++) svc.score.create({ name: "n" + i, value: i, traceId: "t" });
      await processor.shutdown();
      await svc.shutdown();
      console.log(JSON.stringify({ spans: processor.health(), scores: svc.score.health() }));
    }
  `;
}

const RUNTIMES = {
  "cloudflare-workers": `Object.defineProperty(globalThis, "navigator", { value: { userAgent: "Cloudflare-Workers" } });`,
  "vercel-edge": `globalThis.EdgeRuntime = "edge-runtime";`,
};

describe("spillDir where there is no disk to trust", () => {
  for (const [kind, setup] of Object.entries(RUNTIMES)) {
    it(`says once per component in ${kind} that it does not apply, writes nothing, and drops as before`, async () => {
      const server = await startSpillServer("down");
      const dir = spillDir();

      const result = await runChild(program(setup), { env: { SVC_BASE_URL: server.url, DIR: dir } });

      expect(result.code).toBe(0);
      for (const owner of ["SvcSpanProcessor", "ScoreManager"]) {
        const line = `[Svc SDK] ${owner}: spillDir (SVC_SPILL_DIR) does not apply in ${kind}: there is no disk to trust here`;
        expect(result.stderr.split(line)).toHaveLength(2);
      }
      expect(readdirSync(dir)).toEqual([]);
      const rounds = result.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (const { spans, scores } of rounds) {
        expect(spans.spilled + scores.spilled).toBe(0);
        expect(spans.dropped.queueFull + spans.dropped.shutdown).toBe(5);
        expect(scores.dropped.queueFull + scores.dropped.shutdown).toBe(5);
      }
    });
  }
});
