import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { SvcSpanProcessor } from "@svc/otel";
import { startActiveObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer } from "../support/http-server.ts";
import { instrumentedProvider } from "../support/instrumented.ts";

interface OtlpBody {
  resourceSpans?: { scopeSpans?: { spans?: { name: string }[] }[] }[];
}

describe("a user's exporter under http and undici instrumentation", () => {
  it("records no span for the export requests of a custom OTLPTraceExporter, as with the built-in export", async () => {
    const receiver = await startServer(() => ({ status: 200, json: {} }));
    onTestFinished(() => receiver.close());
    const exporter = new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` });
    const processor = new SvcSpanProcessor({ exporter, flushInterval: 3600 }, {});
    const { seen, http } = instrumentedProvider(processor);
    // The application's own requests are traced: the instrumentation is live.
    await new Promise<void>((resolve, reject) =>
      http.get(`${receiver.url}/health`, (res) => res.resume().on("end", resolve)).on("error", reject),
    );
    expect(seen.getFinishedSpans().map((s) => s.instrumentationScope.name)).toEqual([
      "@opentelemetry/instrumentation-http",
    ]);
    seen.reset();

    // Each export starts from the context of the application's work: a flush inside an active observation.
    for (let i = 0; i < 3; i++)
      await startActiveObservation(`work-${i}`, async () => {
        await startActiveObservation(`step-${i}`, async () => {});
        await processor.forceFlush();
      });
    await processor.forceFlush();

    const exports = receiver.seen.filter((r) => r.path === "/v1/traces");
    expect(exports.length).toBeGreaterThanOrEqual(3);
    expect(exports.filter((r) => r.headers.traceparent !== undefined)).toEqual([]);
    const exported = exports.flatMap((r) =>
      ((r.json as OtlpBody).resourceSpans ?? []).flatMap((rs) =>
        (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((s) => s.name)),
      ),
    );
    expect(exported.sort()).toEqual(["step-0", "step-1", "step-2", "work-0", "work-1", "work-2"]);
    expect(
      seen
        .getFinishedSpans()
        .map((s) => `${s.instrumentationScope.name} ${s.name}`)
        .sort(),
    ).toEqual([
      "svc-sdk step-0",
      "svc-sdk step-1",
      "svc-sdk step-2",
      "svc-sdk work-0",
      "svc-sdk work-1",
      "svc-sdk work-2",
    ]);
  });
});
