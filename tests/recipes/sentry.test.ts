import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { useDevServer } from "../support/dev-server.ts";
import { startServer } from "../support/http-server.ts";
import { sentryDsn, sentrySpanNames, svcTraces } from "../support/recipes.ts";

// The recipes of docs/other-opentelemetry-users.md with @sentry/node 11: 100 requests, each a Sentry span with an svc
// trace inside; Sentry sends to a loopback sink, svc to the dev server.
const APP = `
import * as Sentry from "@sentry/node";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { AlwaysOnSampler } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startActiveObservation } from "@svc/tracing";

const setup = process.env.SETUP;
Sentry.init({
  dsn: process.env.SENTRY_DSN,
  tracesSampleRate: Number(process.env.SENTRY_RATE),
  enableOpenTelemetrySetup: setup !== "sentry-default",
});
const stops = [];
if (setup === "sentry-default" || setup === "sentry-otel-with-nodesdk") {
  // svc's documented set-up.
  const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
  sdk.start();
  stops.push(() => sdk.shutdown());
} else {
  // The recipe next to Sentry's own provider: svc spans through a provider of their own, sampled by svc alone.
  const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SvcSpanProcessor()] });
  setSvcTracerProvider(provider);
  stops.push(() => provider.shutdown());
}

for (let i = 0; i < 100; i++) {
  await Sentry.startSpan({ name: "request-" + i }, () =>
    startActiveObservation("svc-trace-" + i, async (span) => {
      span.update({ input: { i } });
    }),
  );
}
await Promise.all([...stops.map((stop) => stop()), Sentry.close(5000)]);
`;

async function runApp(setup: string, sentryRate: number) {
  const svc = await useDevServer();
  const sink = await startServer();
  onTestFinished(() => sink.close());
  const result = await runChild(APP, {
    env: {
      SETUP: setup,
      SENTRY_RATE: String(sentryRate),
      SENTRY_DSN: sentryDsn(sink),
      SVC_BASE_URL: svc.url,
      SVC_PUBLIC_KEY: svc.publicKey,
      SVC_SECRET_KEY: svc.secretKey,
      OTEL_METRICS_EXPORTER: "none",
    },
    external: ["@sentry/node"],
    timeoutMs: 60_000,
  });
  const sentry = sentrySpanNames(sink).filter((name) => name.startsWith("request-")).length;
  console.log(
    `${setup} (Sentry tracesSampleRate ${sentryRate}): svc ${svcTraces(svc)}/100, Sentry ${sentry}/100, ${result.ms} ms`,
  );
  return { result, svcTraces: svcTraces(svc), sentry, output: result.stdout + result.stderr };
}

const WARNING = "by a tracer provider without SvcSpanProcessor";

describe("next to @sentry/node 11", () => {
  it("with Sentry's defaults and svc's documented set-up, every trace reaches both", async () => {
    const app = await runApp("sentry-default", 1);

    expect(app.result.code).toBe(0);
    expect(app.svcTraces).toBe(100);
    expect(app.sentry).toBe(100);
    expect(app.output).not.toContain(WARNING);
  });

  it.each([
    { rate: 1, sentry: 100 },
    { rate: 0, sentry: 0 },
  ])(
    "with enableOpenTelemetrySetup and svc's provider given to setSvcTracerProvider, every svc trace arrives whatever Sentry samples (rate $rate)",
    async ({ rate, sentry }) => {
      const app = await runApp("sentry-otel-recipe", rate);

      expect(app.result.code).toBe(0);
      expect(app.svcTraces).toBe(100);
      expect(app.sentry).toBe(sentry);
      expect(app.output).not.toContain(WARNING);
    },
  );

  it.each([1, 0.2, 0])(
    "with enableOpenTelemetrySetup and NodeSDK (a set-up that cannot work), warns once whatever Sentry samples (rate %s)",
    async (rate) => {
      const app = await runApp("sentry-otel-with-nodesdk", rate);

      expect(app.result.code).toBe(0);
      expect(app.svcTraces).toBe(0);
      expect(app.output.split(WARNING)).toHaveLength(2);
      // NodeSDK was started already and could not register its provider: the advice is another one.
      expect(app.output).not.toContain("new NodeSDK(");
      expect(app.output).toContain("such as Sentry with enableOpenTelemetrySetup");
    },
  );
});
