import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { downServer, timed } from "../support/faults.ts";
import { captureLogs } from "../support/logs.ts";

/** What a call may take beyond its deadline on a loaded machine (CONTRIBUTING.md). */
const MARGIN_MS = 3_000;
/** The export timeout of OpenTelemetry's OTLP exporter, its default (`timeoutMillis`). */
const OTEL_EXPORT_TIMEOUT_MS = 10_000;

describe("a script against a port with nothing listening, default options", () => {
  it("shuts down no later than OpenTelemetry's own exporter gives up, and says first how long it waits and why", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const { url } = await downServer(() => ({ status: 200 }));
    const keys = { baseUrl: url, publicKey: "pk-test", secretKey: "sk-test" };
    const provider = new BasicTracerProvider({ spanProcessors: [new SvcSpanProcessor(keys, {})] });
    const svc = new SvcClient(keys);
    const reference = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${url}/api/public/otel/v1/traces` }))],
    });
    onTestFinished(() => Promise.all([provider.shutdown(), svc.shutdown()]).then(() => {}));
    provider.getTracer("svc-sdk").startSpan("job").end();
    reference.getTracer("script").startSpan("job").end();
    svc.score.create({ name: "quality", value: 1, traceId: "t" });

    const [ours, theirs] = await Promise.all([
      timed(() => Promise.all([provider.shutdown(), svc.shutdown()])),
      // OpenTelemetry's shutdown rejects with the connection error once its exporter gives up.
      timed(() => reference.shutdown().catch(() => {})),
    ]);

    console.info(
      `nothing listening: svc shutdown ${Math.round(ours.ms)} ms, OpenTelemetry ${Math.round(theirs.ms)} ms`,
    );
    expect(ours.ms).toBeLessThan(OTEL_EXPORT_TIMEOUT_MS + MARGIN_MS);
    const messages = logs.map((l) => l.message);
    for (const [owner, what] of [
      ["SvcSpanProcessor", "1 span"],
      ["ScoreManager", "1 score"],
    ] as const) {
      const first = messages.find((m) => m.includes(`${owner}:`));
      // One request's timeout (10 s), less the time the first attempt took before it was refused.
      const said = new RegExp(
        `${owner}: .*ECONNREFUSED.*shutdown\\(\\) waits at most (\\d+(?:\\.\\d)?) s .*to deliver ${what}\\b`,
      );
      expect(first).toMatch(said);
      const seconds = Number(said.exec(first ?? "")?.[1]);
      expect(seconds).toBeGreaterThan(5);
      expect(seconds).toBeLessThanOrEqual(10);
      expect(first).not.toContain("dropped only when the queue fills up");
      expect(first).not.toContain(`${what}s`);
    }
  });
});
