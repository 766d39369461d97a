import { SvcClient } from "@svc/client";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";

// `@svc/client/node-test`: the same suite as the vitest integration, declared with Node's own test runner, run as a
// user runs it (`node --test`) in a child process against a dev server.

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ port: 0 });
});
afterAll(() => server.close());

const PROGRAM = `
import { after } from "node:test";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcSpanProcessor } from "@svc/otel";
import { describeExperiment } from "@svc/client/node-test";

const provider = new NodeTracerProvider({ spanProcessors: [new SvcSpanProcessor()] });
provider.register();
after(() => provider.shutdown());

const CAPITALS = { France: "Paris", Japan: "Kyoto" };
describeExperiment({
  name: "capitals-node",
  runName: "capitals-node run",
  data: [
    { input: "France", expectedOutput: "Paris" },
    { input: "Japan", expectedOutput: "Tokyo" },
  ],
  task: ({ input }) => CAPITALS[input],
  evaluators: [({ output, expectedOutput }) => ({ name: "exact_match", value: output === expectedOutput })],
  assertions: ["exact_match >= 1", "mean(exact_match) >= 0.5"],
});
`;

describe("describeExperiment of @svc/client/node-test", () => {
  it("runs each item as a node:test test, fails the wrong one with its input, output and scores, and records the run", async () => {
    const run = await runChild(PROGRAM, {
      nodeArgs: ["--test-reporter=tap"],
      env: { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: server.secretKey },
      timeoutMs: 60_000,
    });

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stdout).toMatch(/^\s*ok \d+ - item 1 \(input "France"\)$/m);
    expect(run.stdout).toMatch(/^\s*not ok \d+ - item 2 \(input "Japan"\)$/m);
    expect(run.stdout).toMatch(/^\s*ok \d+ - mean\(exact_match\) >= 0\.5$/m);
    expect(run.stdout).toContain('item 2 (input "Japan") failed: exact_match >= 1 (got 0)');
    expect(run.stdout).toContain("output:   Kyoto");
    expect(run.stdout).toContain("scores:   exact_match=0");
    const svc = new SvcClient({ baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey });
    const runs = await svc.api.experiments.list({ fromStartTime: "2020-01-01T00:00:00Z", name: "capitals-node run" });
    expect(runs.data).toEqual([expect.objectContaining({ itemCount: 2 })]);
    // The message names the item by the id its trace records, which the server lists.
    const items = await svc.api.experiments.listItems({
      fromStartTime: "2020-01-01T00:00:00Z",
      experimentName: "capitals-node run",
      fields: "core,io",
    });
    const japan = items.data.find((i) => i.input === "Japan");
    expect(run.stdout).toContain(`item id:  ${japan?.experimentItemId} (local item: hash of its input)`);
  });
});
