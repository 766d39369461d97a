import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { type SpanExporterLike, SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer, SILENT, timed } from "../support/faults.ts";
import type { SeenRequest } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { exportedSpans } from "../support/otel.ts";

/** The deadline of every flush and shutdown here, in seconds. */
const FLUSH_TIMEOUT_S = 2;
/** What a flush or shutdown may take beyond `flushTimeout`: the SDK's own margin, and a slow machine. */
const BOUND_MS = FLUSH_TIMEOUT_S * 1000 + 1_500;
/** Later than the deadline: when the hostile pieces below settle, throw or call back, if they ever do. */
const LATE_MS = FLUSH_TIMEOUT_S * 1000 + 1_000;
const NEVER = new Promise<never>(() => {});
const PNG = `data:image/png;base64,${Buffer.from("png-bytes").toString("base64")}`;

function provider(params: SvcSpanProcessorParams, baseUrl = "http://127.0.0.1:9") {
  const processor = new SvcSpanProcessor(
    {
      baseUrl,
      publicKey: "pk-test",
      secretKey: "sk-test",
      flushTimeout: FLUSH_TIMEOUT_S,
      flushInterval: 3600,
      ...params,
    },
    {},
  );
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => tracerProvider.shutdown());
  const end = (count: number, attributes = {}) => {
    const tracer = tracerProvider.getTracer("svc-sdk");
    for (let i = 0; i < count; i++) tracer.startSpan(`s${i}`, { attributes }).end();
  };
  return { processor, tracerProvider, end };
}

/** Resolves after `ms`; the timer is cleared when the test ends. */
function later<T>(ms: number, fn: () => T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fn()), ms);
    onTestFinished(() => clearTimeout(timer));
  });
}

/** Times forceFlush() then shutdown() of the tracer provider. */
async function flushAndShutDown(tracerProvider: BasicTracerProvider) {
  const flushed = await timed(() => tracerProvider.forceFlush());
  const shut = await timed(() => tracerProvider.shutdown());
  return { flushMs: flushed.ms, shutdownMs: shut.ms };
}

describe("forceFlush() and shutdown() end within flushTimeout whatever user code does", () => {
  it("a custom exporter that never calls back and whose forceFlush() and shutdown() never settle", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const calls: string[] = [];
    const exporter: SpanExporterLike = {
      export: () => calls.push("export"),
      forceFlush: () => {
        calls.push("forceFlush");
        return NEVER;
      },
      shutdown: () => {
        calls.push("shutdown");
        return NEVER;
      },
    };
    const { tracerProvider, end } = provider({ exporter });

    end(3);
    const { flushMs, shutdownMs } = await flushAndShutDown(tracerProvider);

    expect(flushMs).toBeLessThan(BOUND_MS);
    expect(shutdownMs).toBeLessThan(BOUND_MS);
    expect(calls).toEqual(["export", "forceFlush", "shutdown"]);
    const text = logs.map((l) => l.message).join("\n");
    expect(text).toMatch(/exporter\.forceFlush\(\) did not settle within/);
    expect(text).toMatch(/exporter\.shutdown\(\) did not settle within/);
  });

  it("a custom exporter that calls back, and rejects its forceFlush() and shutdown(), after the deadline", async () => {
    captureLogs(LogLevel.ERROR);
    let lateCalls = 0;
    const exporter: SpanExporterLike = {
      export: (_spans, done) =>
        void later(LATE_MS, () => {
          lateCalls++;
          done({ code: 1, error: new Error("late") });
        }),
      forceFlush: () => later(LATE_MS, () => lateCalls++).then(() => Promise.reject(new Error("late forceFlush"))),
      shutdown: () => later(LATE_MS, () => lateCalls++).then(() => Promise.reject(new Error("late shutdown"))),
    };
    const { tracerProvider, end } = provider({ exporter });

    end(3);
    const { flushMs, shutdownMs } = await flushAndShutDown(tracerProvider);
    await later(LATE_MS, () => undefined); // the late answers arrive, and change nothing

    expect(flushMs).toBeLessThan(BOUND_MS);
    expect(shutdownMs).toBeLessThan(BOUND_MS);
    expect(lateCalls).toBe(3);
  });

  it("an async mask that never settles, or rejects after the deadline, and a filter that throws", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(() => ({ status: 200, json: {} }));
    let masks = 0;
    const mask = () =>
      ++masks % 2 === 0 ? NEVER : later(LATE_MS, () => undefined).then(() => Promise.reject(new Error("late mask")));
    const shouldExportSpan = ({ otelSpan }: { otelSpan: { name: string } }) => {
      if (otelSpan.name === "s0") throw new Error("filter failed");
      return true;
    };
    const { tracerProvider, end } = provider({ mask, shouldExportSpan }, server.url);

    end(4, { "svc.observation.input": "secret input" });
    const { flushMs, shutdownMs } = await flushAndShutDown(tracerProvider);

    expect(flushMs).toBeLessThan(BOUND_MS);
    expect(shutdownMs).toBeLessThan(BOUND_MS);
    expect(masks).toBe(3);
    expect(JSON.stringify(exportedSpans(server))).not.toContain("secret input");
  });

  it("media uploads that the server never answers", async () => {
    captureLogs(LogLevel.ERROR);
    const isMedia = (req: SeenRequest) => req.path.startsWith("/api/public/media");
    const server = await faultServer((req) => (isMedia(req) ? SILENT(req) : { status: 200, json: {} }));
    const { tracerProvider, end } = provider({}, server.url);

    end(3, { "svc.observation.input": `look: ${PNG}` });
    const { flushMs, shutdownMs } = await flushAndShutDown(tracerProvider);

    expect(flushMs).toBeLessThan(BOUND_MS);
    expect(shutdownMs).toBeLessThan(BOUND_MS);
    expect(server.seen.filter(isMedia).length).toBeGreaterThan(0);
  });
});
