import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { startServer } from "../support/http-server.ts";
import { exportedSpans } from "../support/otel.ts";

/** The README's first example, with NodeSDK, as written there. */
function readmeExample(): string {
  const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
  const block = readme.match(/```ts\n(import \{ NodeSDK \}[\s\S]*?)```/);
  if (!block?.[1]) throw new Error("README.md has no ts block that starts with the NodeSDK import");
  return block[1];
}

// NodeSDK's defaults include an OTLP metrics exporter to localhost:4318; the SDK's metrics must not give it data,
// or `sdk.shutdown()` retries that exporter for seconds. The bound is generous: the figure is about half a second.
it("the README's example with NodeSDK defaults delivers its spans and score and exits within seconds", async () => {
  const sink = await startServer();
  onTestFinished(() => sink.close());

  const result = await runChild(readmeExample(), {
    env: { SVC_BASE_URL: sink.url, SVC_PUBLIC_KEY: "pk-readme", SVC_SECRET_KEY: "sk-readme" },
    timeoutMs: 30_000,
  });

  expect(result.code).toBe(0);
  expect(exportedSpans(sink).map((s) => s.name)).toEqual(["llm-call", "handle-question"]);
  expect(sink.seen.filter((r) => r.path === "/api/public/scores")).toHaveLength(1);
  expect(result.ms).toBeLessThan(4_000);
  console.log(`README example with NodeSDK defaults exited in ${result.ms} ms`);
});
