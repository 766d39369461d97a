import { metrics } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { faultServer } from "../support/faults.ts";
import { captureLogs } from "../support/logs.ts";
import { svcProvider } from "../support/otel.ts";

/** A real meter provider with an in-memory exporter, registered as the global one for the test unless told. */
function meterProvider({ global = true } = {}) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  if (global) metrics.setGlobalMeterProvider(provider);
  onTestFinished(async () => {
    metrics.disable();
    await provider.shutdown();
  });
  /** Collects now and returns each data point of the svc instruments as `name{attributes}` → value. */
  const collect = async (): Promise<Map<string, number>> => {
    exporter.reset();
    await reader.forceFlush();
    const points = new Map<string, number>();
    for (const resource of exporter.getMetrics())
      for (const scope of resource.scopeMetrics)
        for (const metric of scope.metrics)
          for (const point of metric.dataPoints) {
            const attributes = Object.entries(point.attributes)
              .map(([k, v]) => `${k}=${String(v)}`)
              .join(",");
            points.set(`${metric.descriptor.name}{${attributes}}`, point.value as number);
          }
    return points;
  };
  return { collect, provider };
}

/** How much each data point grew between two collections. */
function growth(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta !== 0) out[key] = delta;
  }
  return out;
}

const SPANS = "svc.delivery.items=spans";
const SCORES = "svc.delivery.items=scores";

describe("delivery figures as OpenTelemetry metrics", () => {
  it("reports sent spans on a meter provider registered after the processor was made", async () => {
    const server = await faultServer(() => ({ status: 200, json: {} }));
    const { processor, svc } = svcProvider(server, { meterProvider: "global" }, {});
    const { collect } = meterProvider();
    svc.startSpan("first").end();
    await processor.forceFlush(); // the first batch after the registration finds the provider
    const before = await collect();

    for (let i = 0; i < 5; i++) svc.startSpan(`s${i}`).end();
    await processor.forceFlush();
    const after = await collect();

    expect(growth(before, after)).toEqual({ [`svc.delivery.sent{${SPANS}}`]: 5 });
    expect(after.get(`svc.delivery.queued{${SPANS}}`)).toBe(0);
    expect(after.get(`svc.delivery.in_flight{${SPANS}}`)).toBe(0);
    expect(after.get(`svc.delivery.dropped{${SPANS},svc.delivery.drop_reason=queueFull}`)).toBeTypeOf("number");
  });

  it("counts spans refused for their keys under the reason auth", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(() => ({ status: 401, json: { message: "bad keys" } }));
    const { processor, svc } = svcProvider(server, { meterProvider: "global" }, {});
    const { collect } = meterProvider();
    svc.startSpan("first").end();
    await processor.forceFlush();
    const before = await collect();

    for (let i = 0; i < 3; i++) svc.startSpan(`s${i}`).end();
    await processor.forceFlush();

    expect(growth(before, await collect())).toEqual({
      [`svc.delivery.dropped{${SPANS},svc.delivery.drop_reason=auth}`]: 3,
    });
  });

  it("reports retries and the queued spans and bytes while the server fails", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await faultServer(() => ({ status: 503, json: {}, headers: { "retry-after": "3600" } }));
    const { processor, svc } = svcProvider(server, { flushTimeout: 0.2, meterProvider: "global" }, {});
    const { collect } = meterProvider();
    const before = await collect();

    for (let i = 0; i < 4; i++) svc.startSpan(`s${i}`).end();
    await processor.forceFlush(); // gives up after flushTimeout; the spans stay queued

    const after = await collect();
    expect(growth(before, after)).toMatchObject({ [`svc.delivery.retries{${SPANS}}`]: 1 });
    expect(after.get(`svc.delivery.queued{${SPANS}}`)).toBeGreaterThanOrEqual(4);
    expect(after.get(`svc.delivery.queued_bytes{${SPANS}}`)).toBeGreaterThan(0);
  });

  it("tells scores from spans", async () => {
    const server = await faultServer(() => ({ status: 200, json: {} }));
    const client = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk", meterProvider: "global" });
    onTestFinished(() => client.shutdown());
    const { collect } = meterProvider();
    client.score.create({ name: "first", value: 1 });
    await client.flush();
    const before = await collect();

    for (let i = 0; i < 7; i++) client.score.create({ name: "accuracy", value: i });
    await client.flush();

    expect(growth(before, await collect())).toEqual({ [`svc.delivery.sent{${SCORES}}`]: 7 });
  });

  it("moves to a meter provider registered in place of the first one", async () => {
    const server = await faultServer(() => ({ status: 200, json: {} }));
    const { processor, svc } = svcProvider(server, { meterProvider: "global" }, {});
    const first = meterProvider();
    svc.startSpan("a").end();
    await processor.forceFlush();
    const sent = `svc.delivery.sent{${SPANS}}`;
    const seenByFirst = (await first.collect()).get(sent);

    metrics.disable();
    const second = meterProvider();
    svc.startSpan("b").end();
    svc.startSpan("c").end();
    await processor.forceFlush();

    expect((await second.collect()).get(sent)).toBe((seenByFirst ?? 0) + 2);
    expect((await first.collect()).get(sent)).toBe(seenByFirst); // no longer observed there
  });

  it("warns about a meterProvider option that is not a meter provider and observes nothing", async () => {
    const logs = captureLogs(LogLevel.WARN);
    const server = await faultServer(() => ({ status: 200, json: {} }));
    svcProvider(server, { meterProvider: "yes" as unknown as "global" }, {});

    expect(logs.map((l) => l.message).join("\n")).toContain(
      'option meterProvider="yes" is not a MeterProvider (an object with getMeter) or "global"; using none',
    );
  });
});

it("keeps the counters from going down when a processor is garbage collected", async () => {
  const server = await faultServer(() => ({ status: 200, json: {} }));
  const result = await runChild(
    `
    import {
      AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader,
    } from "@opentelemetry/sdk-metrics";
    import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
    import { SvcSpanProcessor } from "@svc/otel";

    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });
    async function sent() {
      exporter.reset();
      await reader.forceFlush();
      let total = 0;
      for (const r of exporter.getMetrics()) for (const s of r.scopeMetrics) for (const m of s.metrics)
        if (m.descriptor.name === "svc.delivery.sent") for (const p of m.dataPoints) total += p.value;
      return total;
    }
    async function sendWithAShortLivedProcessor(count) {
      const processor = new SvcSpanProcessor(
        { baseUrl: process.env.URL, publicKey: "pk", secretKey: "sk", meterProvider, flushOnExit: false }, {});
      const provider = new BasicTracerProvider({ spanProcessors: [processor] });
      for (let i = 0; i < count; i++) provider.getTracer("svc-sdk").startSpan("s" + i).end();
      await provider.shutdown();
    }
    const seen = [];
    for (const count of [3, 5]) {
      await sendWithAShortLivedProcessor(count);
      seen.push(await sent());
      for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
      seen.push(await sent());
    }
    console.log(JSON.stringify(seen));
    await meterProvider.shutdown();
    `,
    { env: { URL: server.url }, nodeArgs: ["--expose-gc"] },
  );

  expect(result.stderr).toBe("");
  expect(JSON.parse(result.stdout.trim())).toEqual([3, 3, 8, 8]);
});
