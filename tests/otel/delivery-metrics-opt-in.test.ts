import { metrics } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer } from "../support/faults.ts";
import { svcProvider } from "../support/otel.ts";

// A file of its own: the other metrics tests ask for "global", and what they counted stays observed there.

/** A real meter provider with an in-memory exporter, registered as the global one unless told. */
function meterProvider({ global = true } = {}) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  if (global) metrics.setGlobalMeterProvider(provider);
  onTestFinished(async () => {
    if (global) metrics.disable();
    await provider.shutdown();
  });
  /** Collects now: each data point as `name{attributes}` → value. */
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

/** The data points of the svc instruments. */
function delivery(points: Map<string, number>): string[] {
  return [...points.keys()].filter((k) => k.startsWith("svc.delivery."));
}

const SPANS = "svc.delivery.items=spans";

describe("delivery metrics are opt-in", () => {
  it("gives nothing to the global meter provider of an application that did not ask for the metrics", async () => {
    const server = await faultServer(() => ({ status: 200, json: {} }));
    const { collect } = meterProvider();
    const { processor, svc } = svcProvider(server, {}, {});
    const client = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" });
    onTestFinished(() => client.shutdown());

    for (let i = 0; i < 3; i++) svc.startSpan(`s${i}`).end();
    client.score.create({ name: "accuracy", value: 1 });
    await Promise.all([processor.forceFlush(), client.flush()]);

    expect(delivery(await collect())).toEqual([]);
  });

  it("observes the figures on the meter provider passed as meterProvider, not on the global one", async () => {
    const server = await faultServer(() => ({ status: 200, json: {} }));
    const global = meterProvider();
    const own = meterProvider({ global: false });
    const { processor, svc } = svcProvider(server, { meterProvider: own.provider }, {});

    for (let i = 0; i < 4; i++) svc.startSpan(`s${i}`).end();
    await processor.forceFlush();

    expect((await own.collect()).get(`svc.delivery.sent{${SPANS}}`)).toBe(4);
    expect(delivery(await global.collect())).toEqual([]);
  });
});
