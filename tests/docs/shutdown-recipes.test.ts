import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild, startChild } from "../support/child-process.ts";
import { startServer, type TestServer } from "../support/http-server.ts";
import { exportedSpans } from "../support/otel.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const READMES = [
  "README.md",
  ...readdirSync(join(ROOT, "packages")).map((name) => `packages/${name}/README.md`),
].filter((path) => {
  try {
    readFileSync(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
});

interface Block {
  readme: string;
  heading: string;
  code: string;
}

/** Every TypeScript block of every README, with the heading it stands under. */
function blocks(): Block[] {
  const out: Block[] = [];
  for (const readme of READMES) {
    let heading = "";
    const text = readFileSync(join(ROOT, readme), "utf8");
    for (const part of text.split(/^```/m).entries()) {
      const [index, body] = part;
      if (index % 2 === 0) {
        const headings = body.match(/^#+ .*$/gm);
        if (headings) heading = (headings.at(-1) as string).replace(/^#+ /, "");
      } else if (body.startsWith("ts\n")) out.push({ readme, heading, code: body.slice(3) });
    }
  }
  return out;
}

/** Whether a block calls `shutdown()` in code (not in a comment). */
function shutsDown(code: string): boolean {
  return code.split("\n").some((line) => /\.shutdown\(\)/.test(line.replace(/\/\/.*$/, "")));
}

/** The blocks with a shutdown in code, by README and heading, and the test below that runs each. */
const RECIPES: Record<string, string> = {
  "README.md > Using the SDK": "the repository README's quick start",
  "README.md > Shutting down": "tests/faults/shutdown-recipe.test.ts",
  "packages/tracing/README.md > Set up OpenTelemetry #1": "the @svc/tracing README's NodeSDK set-up",
  "packages/tracing/README.md > Set up OpenTelemetry #2": "the @svc/tracing README's bare provider",
  "packages/otel/README.md > Set-up with NodeSDK": "the @svc/otel README's NodeSDK set-up",
  // The tracing set-up of the CI project, run (with the whole project) by tests/e2e/experiments-ci.test.ts.
  "packages/client/README.md > Run experiments in CI": "tests/e2e/experiments-ci.test.ts",
};

function recipeBlocks(): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const block of blocks()) {
    if (!shutsDown(block.code)) continue;
    const place = `${block.readme} > ${block.heading}`;
    const n = (seen.get(place) ?? 0) + 1;
    seen.set(place, n);
    found.set(n === 1 && !RECIPES[`${place} #1`] ? place : `${place} #${n}`, block.code);
  }
  return found;
}

function recipe(name: string): string {
  const code = recipeBlocks().get(name);
  if (code === undefined) throw new Error(`no block ${name}`);
  return code;
}

async function sink(): Promise<TestServer> {
  const server = await startServer();
  onTestFinished(() => server.close());
  return server;
}

const KEYS = { SVC_PUBLIC_KEY: "pk-readme", SVC_SECRET_KEY: "sk-readme-secret" };

describe("shutdown recipes of the READMEs", () => {
  it("are each run by a test below, and none awaits one shutdown after another", () => {
    const found = recipeBlocks();

    expect([...found.keys()].sort()).toEqual(Object.keys(RECIPES).sort());
    for (const code of found.values())
      expect(code).not.toMatch(/await [\w.]+\.shutdown\(\);?[^\n]*\n\s*await [\w.]+\.shutdown\(\)/);
  });

  it("the repository README's quick start delivers its spans and score and ends", async () => {
    const server = await sink();

    const result = await runChild(recipe("README.md > Using the SDK"), {
      env: { ...KEYS, SVC_BASE_URL: server.url },
      timeoutMs: 20_000,
    });

    expect(result.code).toBe(0);
    expect(
      exportedSpans(server)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["handle-question", "llm-call"]);
    const scores = server.seen.filter((r) => r.path === "/api/public/scores").flatMap((r) => r.json as unknown[]);
    expect(scores).toHaveLength(1);
    expect(result.stderr).toBe("");
  }, 40_000);

  it("the @svc/tracing README's NodeSDK set-up delivers the last spans on SIGTERM, then lets the process end", async () => {
    const server = await sink();
    const program = `
      import { createServer } from "node:http";
      import { startActiveObservation } from "@svc/tracing";
      ${recipe("packages/tracing/README.md > Set up OpenTelemetry #1")}
      // The application: a server that would run forever.
      const app = createServer((_req, res) => res.end("ok")).listen(0, "127.0.0.1");
      for (let i = 0; i < 5; i++) await startActiveObservation("work-" + i, async () => i);
      app.on("listening", () => console.log("ready"));
    `;

    const child = await startChild(program, { env: { ...KEYS, SVC_BASE_URL: server.url }, timeoutMs: 20_000 });
    await child.waitFor(/ready/);
    child.process.kill("SIGTERM");
    const result = await child.done;

    expect(result.signal).toBe("SIGTERM");
    expect(exportedSpans(server)).toHaveLength(5);
    expect(result.stderr).toBe("");
  }, 40_000);

  it("the @svc/tracing README's bare provider delivers its spans and ends", async () => {
    const server = await sink();
    // On the 2.x line, as the README says; the context manager from where the Node SDK finds it.
    const contextManager = createRequire(createRequire(join(ROOT, "package.json")).resolve("@opentelemetry/sdk-node"))
      .resolve("@opentelemetry/context-async-hooks")
      .replaceAll("\\", "/");
    const code = recipe("packages/tracing/README.md > Set up OpenTelemetry #2")
      .replace(
        'import { TracerProvider } from "@opentelemetry/sdk-trace";',
        'import { BasicTracerProvider as TracerProvider } from "@opentelemetry/sdk-trace-base";',
      )
      .replace('"@opentelemetry/context-async-hooks"', JSON.stringify(contextManager))
      .replace(
        "// ... and on shutdown:",
        'const { startActiveObservation } = await import("@svc/tracing");\nfor (let i = 0; i < 3; i++) await startActiveObservation("bare-" + i, async () => i);',
      );

    const result = await runChild(code, { env: { ...KEYS, SVC_BASE_URL: server.url }, timeoutMs: 20_000 });

    expect(result.code).toBe(0);
    expect(exportedSpans(server)).toHaveLength(3);
    expect(result.stderr).toBe("");
  }, 40_000);

  it("the @svc/otel README's NodeSDK set-up delivers the spans that ended before shutdown() and ends", async () => {
    const server = await sink();
    const code = recipe("packages/otel/README.md > Set-up with NodeSDK").replace(
      "// Before the process exits",
      'const { trace } = await import("@opentelemetry/api");\nfor (let i = 0; i < 4; i++) trace.getTracer("svc-sdk").startSpan("otel-" + i).end();\n// Before the process exits',
    );

    const result = await runChild(code, { env: { ...KEYS, SVC_BASE_URL: server.url }, timeoutMs: 20_000 });

    expect(result.code).toBe(0);
    expect(exportedSpans(server)).toHaveLength(4);
    expect(result.stderr).toBe("");
  }, 40_000);
});
