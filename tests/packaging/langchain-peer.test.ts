import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installApp, npm, packAll, removeDir } from "../support/packages.ts";

// Needs the built packages: run `pnpm build` first.
describe("@svc/langchain peer dependency on @langchain/core", () => {
  const dirs: string[] = [];
  let svcDeps: Record<string, string> = {};

  beforeAll(() => {
    const packed = packAll();
    dirs.push(packed.dir);
    svcDeps = {
      "@svc/tracing": `file:${packed.tarballs["@svc/tracing"]}`,
      "@svc/langchain": `file:${packed.tarballs["@svc/langchain"]}`,
      "@opentelemetry/api": "1.9.1",
    };
  });

  afterAll(() => {
    for (const dir of dirs) removeDir(dir);
  });

  it("fails to install next to @langchain/core 0.3 with a peer dependency conflict naming the peer", () => {
    const app = installApp({ ...svcDeps, "@langchain/core": "0.3" }, { expectFailure: true });
    dirs.push(app.dir);

    expect(app.ok).toBe(false);
    expect(app.output).toContain("ERESOLVE");
    expect(app.output).toMatch(/peer @langchain\/core@"\^1\.0\.0" from @svc\/langchain@6/);
  });

  it("installs cleanly next to @langchain/core ^1 and records a model run with the handler attached", () => {
    const app = installApp({
      ...svcDeps,
      "@langchain/core": "^1.0.0",
      "@opentelemetry/sdk-trace-base": "2.12.1",
      "@opentelemetry/sdk-trace-node": "2.12.0",
    });
    dirs.push(app.dir);

    const tree = npm(["ls", "@langchain/core", "@svc/langchain"], app.dir);
    expect(tree).toMatch(/@langchain\/core@1\.\d+\.\d+/);
    expect(tree).not.toMatch(/invalid|UNMET/);

    writeFileSync(
      join(app.dir, "run.mjs"),
      [
        'import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";',
        'import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";',
        'import { CallbackHandler } from "@svc/langchain";',
        'import { FakeListChatModel } from "@langchain/core/utils/testing";',
        "const exporter = new InMemorySpanExporter();",
        "new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();",
        "const handler = new CallbackHandler({ userId: 'u-1' });",
        "const reply = await new FakeListChatModel({ responses: ['pong'] }).invoke('ping', { callbacks: [handler] });",
        "console.log('reply=' + reply.content);",
        "for (const span of exporter.getFinishedSpans()) {",
        "  const a = span.attributes;",
        "  console.log(['span=' + span.name, a['svc.observation.type'], a['user.id'], a['svc.observation.output']].join(' '));",
        "}",
      ].join("\n"),
    );
    const run = spawnSync("node", ["run.mjs"], { cwd: app.dir, encoding: "utf8" });
    expect(run.stdout).toContain("reply=pong");
    expect(run.stdout).toContain('span=FakeListChatModel generation u-1 {"role":"assistant","content":"pong"}');
    // The provider exports into memory, not to svc: the SDK says so once.
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringContaining(
        'observation "FakeListChatModel" was recorded by a tracer provider without SvcSpanProcessor',
      ),
    ]);
  });
});
