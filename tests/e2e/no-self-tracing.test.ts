import { SvcClient, SvcMedia } from "@svc/client";
import { startDevServer } from "@svc/dev-server";
import { SvcSpanProcessor } from "@svc/otel";
import { startActiveObservation } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { instrumentedProvider } from "../support/instrumented.ts";

const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("the SDK's own requests under http and undici instrumentation", () => {
  it("record no span for span export, scores, prompts and media, while the application's requests are traced", async () => {
    const server = await startDevServer({ port: 0 });
    onTestFinished(() => server.close());
    const credentials = { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey };
    const processor = new SvcSpanProcessor(credentials, {});
    const { seen, http } = instrumentedProvider(processor);

    // The application's own requests are traced: the instrumentation is live.
    await new Promise<void>((resolve, reject) =>
      http.get(`${server.url}/api/public/health`, (res) => res.resume().on("end", resolve)).on("error", reject),
    );
    await fetch(`${server.url}/api/public/health`).then((res) => res.text());
    const scopes = seen.getFinishedSpans().map((s) => s.instrumentationScope.name);
    expect(scopes).toEqual(["@opentelemetry/instrumentation-http", "@opentelemetry/instrumentation-undici"]);
    seen.reset();

    const svc = new SvcClient(credentials);
    await svc.prompt.create({ name: "greeting", prompt: "Hello {{name}}", labels: ["production"] });
    await startActiveObservation("traced-work", async (span) => {
      span.update({ input: { image: PNG } });
      svc.score.trace({ otelSpan: span.otelSpan }, { name: "quality", value: 1 });
      const prompt = await svc.prompt.get("greeting", { type: "text", cacheTtlSeconds: 0 });
      span.update({ output: prompt.compile({ name: "svc" }) });
    });
    await svc.dataset
      .createItem({ datasetName: "no-self-tracing", input: new SvcMedia({ base64DataUri: PNG }) })
      .catch(async () => {
        await svc.api.datasets.create({ name: "no-self-tracing" });
        await svc.dataset.createItem({ datasetName: "no-self-tracing", input: new SvcMedia({ base64DataUri: PNG }) });
      });
    await processor.forceFlush();
    await svc.flush();

    const received = await svc.api.observations.getMany({ name: "traced-work", fields: "core,io" });
    expect(received.data).toHaveLength(1);
    expect(String(received.data[0]?.input)).toContain("@@@svcMedia:");
    expect(server.store.media.size).toBeGreaterThan(0);
    expect(seen.getFinishedSpans().map((s) => `${s.instrumentationScope.name} ${s.name}`)).toEqual([
      "svc-sdk traced-work",
    ]);
  });
});
