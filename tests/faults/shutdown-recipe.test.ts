import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { startChild } from "../support/child-process.ts";
import { startServer } from "../support/http-server.ts";
import { exportedSpans } from "../support/otel.ts";

/** The first TypeScript block after the heading "Shutting down" of the repository README, as written there. */
function readmeRecipe(): string {
  const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### Shutting down"));
  const block = section.match(/```ts\n([\s\S]*?)```/);
  if (!block?.[1]) throw new Error("README.md has no ts block under ### Shutting down");
  return block[1];
}

it("the README's signal recipe delivers queued spans and scores, then lets the process end by the signal", async () => {
  const sink = await startServer();
  onTestFinished(() => sink.close());
  const program = `
    import { createServer } from "node:http";
    import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
    import { SvcClient } from "@svc/client";
    import { SvcSpanProcessor } from "@svc/otel";
    const keys = { baseUrl: process.env.SVC_BASE_URL, publicKey: "pk-recipe", secretKey: "sk-recipe-secret" };
    // The application: an HTTP server that would run forever, and the SDK as the README sets it up.
    const server = createServer((_req, res) => res.end("ok")).listen(0, "127.0.0.1");
    const sdk = new BasicTracerProvider({ spanProcessors: [new SvcSpanProcessor({ ...keys, flushInterval: 3600 })] });
    const svc = new SvcClient({ ...keys, flushInterval: 3600, flushAt: 1000 });
    ${readmeRecipe()}
    const tracer = sdk.getTracer("svc-sdk");
    for (let i = 0; i < 50; i++) tracer.startSpan("work-" + i).end();
    for (let i = 0; i < 20; i++) svc.score.create({ name: "score-" + i, value: i, traceId: "t" });
    server.on("listening", () => console.log("ready"));
  `;

  const child = await startChild(program, { env: { SVC_BASE_URL: sink.url }, timeoutMs: 15_000 });
  await child.waitFor(/ready/);
  child.process.kill("SIGTERM");
  const result = await child.done;

  expect(result.signal).toBe("SIGTERM");
  expect(exportedSpans(sink)).toHaveLength(50);
  const scores = sink.seen.filter((r) => r.path === "/api/public/scores").flatMap((r) => r.json as unknown[]);
  expect(scores).toHaveLength(20);
  expect(result.stderr).toBe("");
});
