import { describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";
import { faultServer } from "../support/faults.ts";
import { exportedSpans } from "../support/otel.ts";

const TRACES = "/api/public/otel/v1/traces";
/** Makes the child look like Cloudflare Workers to the SDK (the global it detects them by), before any code runs. */
const AS_WORKERS = `data:text/javascript,${encodeURIComponent(
  'Object.defineProperty(globalThis, "navigator", { value: { userAgent: "Cloudflare-Workers" }, configurable: true });',
)}`;

const PROGRAM = `
  import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
  import { SvcSpanProcessor } from "@svc/otel";
  const mask = async ({ data }) => {
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    return data;
  };
  const processor = new SvcSpanProcessor(
    { baseUrl: process.env.SVC_BASE_URL, publicKey: "pk", secretKey: "sk", exportMode: "immediate", timeout: 10, mask },
    {},
  );
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  provider.getTracer("svc-sdk").startSpan("answer", { attributes: { "svc.observation.input": "question" } }).end();
  // The handler goes on with its work; then the flush (in Workers, what ctx.waitUntil is given).
  await new Promise((resolve) => setTimeout(resolve, 100));
  await processor.forceFlush();
  const { sent, dropped } = processor.health();
  console.log(JSON.stringify({ sent, dropped: dropped.shutdown }));
  await provider.shutdown();
`;

describe("a send on Cloudflare Workers whose mask and request each take most of their own limits", () => {
  it("is delivered once: never taken as lost while its request may still be answered", async () => {
    // 6 s of mask, then 9.5 s for the answer: each inside its 10 s limit, 15.5 s in all.
    const server = await faultServer((req) =>
      req.path === TRACES ? { status: 200, json: {}, delayMs: 9_500 } : { status: 200, json: {} },
    );

    const result = await runChild(PROGRAM, {
      env: { SVC_BASE_URL: server.url },
      nodeArgs: ["--import", AS_WORKERS],
      timeoutMs: 45_000,
    });

    expect(result.stdout.trim().split("\n").at(-1)).toBe(JSON.stringify({ sent: 1, dropped: 0 }));
    expect(server.seen.filter((r) => r.path === TRACES)).toHaveLength(1);
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["answer"]);
    expect(result.stdout + result.stderr).not.toContain("sent again");
  }, 60_000);
});
