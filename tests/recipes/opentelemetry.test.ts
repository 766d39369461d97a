import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { useDevServer } from "../support/dev-server.ts";
import { startServer } from "../support/http-server.ts";
import { ROOT } from "../support/packages.ts";
import { svcTraces } from "../support/recipes.ts";

// The recipes of docs/other-opentelemetry-users.md with OpenTelemetry's own set-ups. Each app serves 100 requests:
// a span of its own (tracer "app") with an svc trace inside. svc sends to the dev server, the app's own exporter (the
// "other vendor") to a loopback OTLP sink.
const REQUESTS = `
const { trace } = await import("@opentelemetry/api");
const { startActiveObservation } = await import("@svc/tracing");
for (let i = 0; i < 100; i++) {
  await trace.getTracer("app").startActiveSpan("request-" + i, async (span) => {
    await startActiveObservation("svc-trace-" + i, async (obs) => obs.update({ input: { i } }));
    span.end();
  });
}
`;

const APPS: Record<string, string> = {
  "NodeSDK with its defaults": `
    import { NodeSDK } from "@opentelemetry/sdk-node";
    import { SvcSpanProcessor } from "@svc/otel";
    const sdk = new NodeSDK({ spanProcessors: [new SvcSpanProcessor()] });
    sdk.start();
    ${REQUESTS}
    await sdk.shutdown();
  `,
  "NodeSDK with the app's own BatchSpanProcessor and OTLP exporter": `
    import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
    import { NodeSDK } from "@opentelemetry/sdk-node";
    import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
    import { SvcSpanProcessor } from "@svc/otel";
    const sdk = new NodeSDK({
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.VENDOR_URL + "/v1/traces" })),
        new SvcSpanProcessor(),
      ],
    });
    sdk.start();
    ${REQUESTS}
    await sdk.shutdown();
  `,
  "@vercel/otel's registerOTel (OpenTelemetry 2.x line)": `
    import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
    import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
    import { SvcSpanProcessor } from "@svc/otel";
    import { registerOTel } from "@vercel/otel";
    const svc = new SvcSpanProcessor();
    const vendor = new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.VENDOR_URL + "/v1/traces" }));
    registerOTel({ serviceName: "recipe", spanProcessors: ["auto", vendor, svc] });
    ${REQUESTS}
    await Promise.all([svc.shutdown(), vendor.shutdown()]);
  `,
};

interface OtlpBody {
  resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
}

describe.each(Object.keys(APPS))("%s", (name) => {
  it("delivers 100 of 100 svc traces, the app's exporter keeps its spans, and the process ends at once", async () => {
    const svc = await useDevServer();
    const vendor = await startServer();
    onTestFinished(() => vendor.close());

    const result = await runChild(APPS[name] as string, {
      env: {
        SVC_BASE_URL: svc.url,
        SVC_PUBLIC_KEY: svc.publicKey,
        SVC_SECRET_KEY: svc.secretKey,
        VENDOR_URL: vendor.url,
      },
      external: ["@vercel/otel"],
      timeoutMs: 60_000,
    });
    const ownSpans = vendor.seen
      .filter((r) => r.path === "/v1/traces")
      .flatMap((r) => (r.json as OtlpBody).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)))
      .filter((span) => span.name.startsWith("request-")).length;
    console.log(`${name}: svc ${svcTraces(svc)}/100, the app's exporter ${ownSpans}/100, exit ${result.ms} ms`);

    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(svcTraces(svc)).toBe(100);
    if (name.includes("exporter") || name.includes("vercel")) expect(ownSpans).toBe(100);
    expect(result.ms).toBeLessThan(10_000); // generous: the figure is about a second (the README example is held to 4 s)
  });
});

describe("@vercel/otel on the OpenTelemetry 3.x line", () => {
  // The reason the docs give: @vercel/otel 2 needs the 2.x SDK packages, and those need @opentelemetry/api below
  // 1.10, which the 3.x line requires.
  it("cannot be installed cleanly: its SDK peers exclude the 3.x line's @opentelemetry/api", () => {
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
    const vercelDir = realpathSync(join(ROOT, "node_modules", "@vercel", "otel"));
    const vercel = manifest(vercelDir);
    // The sdk-trace-base that @vercel/otel's peer resolved to, beside it in the store.
    const base = manifest(join(vercelDir, "..", "..", "@opentelemetry", "sdk-trace-base"));

    expect(vercel.peerDependencies["@opentelemetry/sdk-trace-base"]).toBe(">=2.0.0 <3.0.0");
    expect(base.peerDependencies["@opentelemetry/api"]).toMatch(/<1\.10\.0$/);
  });
});
