import { execFile, spawn } from "node:child_process";
import { copyFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumBinary, installApp, node24, packAll, removeDir, runtimeTools } from "../support/packages.ts";
import { SERVERLESS_OTEL_PACKAGES } from "../support/recipes.ts";
import { type RecordingProxy, startRecordingProxy } from "../support/recording-proxy.ts";

// The runtime matrix: the packed packages installed into an app as a user installs them, one scenario
// (tests/packaging/runtimes/scenario.mjs) run by each runtime's recipe of docs/serverless.md, against the dev server.
// Each runtime sends through its own recording proxy, which shows how the requests were sent.

const run = promisify(execFile);
const SCENARIO_DIR = join(import.meta.dirname, "runtimes");
const REQUESTS = 3;
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let packed: { dir: string; tarballs: Record<string, string> };
let appDir = "";
let tools = "";
let server: DevServer;
const proxies: RecordingProxy[] = [];

beforeAll(async () => {
  packed = packAll();
  tools = join(runtimeTools(), "node_modules");
  const { tarballs } = packed;
  const install = [tarballs["@svc/tracing"], tarballs["@svc/otel"], tarballs["@svc/client"]] as string[];
  appDir = installApp({}, { install: [...install, ...SERVERLESS_OTEL_PACKAGES] }).dir;
  for (const file of readdirSync(SCENARIO_DIR)) copyFileSync(join(SCENARIO_DIR, file), join(appDir, file));
  server = await startDevServer({ port: 0 });
  // The guide's set-up step creates the prompt the scenario reads, as an app does before its first request.
  const { stdout } = await run(process.execPath, ["setup.mjs"], { cwd: appDir, env: svcEnv(server.url) });
  expect(JSON.parse(stdout)).toEqual({ created: "runtime-greeting", version: 1 });
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await server?.close();
  removeDir(appDir);
  if (packed) removeDir(packed.dir);
});

async function proxy(): Promise<RecordingProxy> {
  const started = await startRecordingProxy(server.url);
  proxies.push(started);
  return started;
}

function svcEnv(baseUrl: string): Record<string, string> {
  return { SVC_BASE_URL: baseUrl, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: server.secretKey };
}

/** Bundles an entry of the app as a bundler for the platform does (wrangler, Next.js, a web app). */
async function bundle(entry: string, options: { conditions: string[]; external?: string[]; format?: "esm" | "iife" }) {
  const out = await build({
    entryPoints: [join(appDir, entry)],
    absWorkingDir: appDir,
    bundle: true,
    write: false,
    platform: "browser",
    format: options.format ?? "esm",
    conditions: options.conditions,
    external: options.external ?? [],
    logLevel: "silent",
  });
  return out.outputFiles[0]?.text ?? "";
}

interface Outcome {
  traceIds: string[];
  logged: [string, string][];
}

/** What the dev server stored for each request's trace, and how it was sent. */
function expectDelivered(
  outcome: Outcome,
  seen: RecordingProxy["seen"],
  expected: { encoding?: string; ua: RegExp; perRequest?: boolean },
) {
  expect(outcome.traceIds).toHaveLength(REQUESTS);
  for (const traceId of outcome.traceIds) {
    const spans = server.store.spansOfTrace(traceId);
    const generation = spans.find((s) => s.name === "llm-call");
    const root = spans.find((s) => s.parentSpanId === undefined || s.parentSpanId === "");
    expect(root, `root span of ${traceId}`).toBeDefined();
    expect(generation?.parentSpanId).toBe(root?.spanId);
    expect(generation?.attributes).toMatchObject({
      "svc.observation.type": "generation",
      "svc.observation.model.name": "gpt-test",
    });
    expect(JSON.parse(String(generation?.attributes["svc.observation.usage_details"]))).toEqual({
      input: 12,
      output: 5,
    });
    const scores = [...server.store.scores.values()].filter((s) => s.traceId === traceId);
    expect(scores.map((s) => [s.name, s.value])).toEqual([["quality", 1]]);
  }
  const exports = seen.filter((r) => r.path === "/api/public/otel/v1/traces");
  // A recipe that flushes each request exports each request's spans; a server batches them between requests.
  expect(exports.length).toBeGreaterThanOrEqual(expected.perRequest === false ? 1 : REQUESTS);
  expect(new Set(exports.map((r) => r.contentEncoding))).toEqual(new Set([expected.encoding]));
  expect(seen.filter((r) => r.path.startsWith("/api/public/v2/prompts/")).length).toBeGreaterThanOrEqual(1);
  for (const request of seen) expect(request.userAgent, `${request.method} ${request.path}`).toMatch(expected.ua);
  expect(seen.every((r) => r.status < 300)).toBe(true);
  expect(outcome.logged.filter(([level]) => level === "error")).toEqual([]);
}

const UA = (runtime: string) => new RegExp(`^svc-sdk-js/\\S+ \\(${runtime}\\)$`);

describe("server runtimes, the SDK built at module scope and each request flushed before it returns", () => {
  const scripts = [
    { name: "Node 22", bin: () => process.execPath, args: [], ua: UA(`node ${process.versions.node}; linux x64`) },
    { name: "Node 24", bin: () => node24(), args: [], ua: UA("node 24\\.\\d+\\.\\d+; linux x64") },
    {
      name: "Bun",
      bin: () => join(tools, "@oven", "bun-linux-x64", "bin", "bun"),
      args: ["run"],
      ua: UA("bun 1\\.\\d+\\.\\d+; linux x64"),
    },
    {
      name: "Deno",
      bin: () => join(tools, "@deno", "linux-x64-glibc", "deno"),
      args: ["run", "--allow-net=127.0.0.1", "--allow-env", "--allow-read"],
      ua: UA("deno 2\\.\\d+\\.\\d+; linux x86_64"),
    },
  ];

  it.each(scripts)(
    "$name, Lambda-style: delivers every request, gzip-compressed, naming the runtime",
    async (runtime) => {
      const sink = await proxy();
      const { stdout } = await run(runtime.bin(), [...runtime.args, "script.mjs"], {
        cwd: appDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...svcEnv(sink.url), RUN_NAME: runtime.name },
        timeout: 60_000,
      });
      const outcome = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Outcome;

      expectDelivered(outcome, sink.seen, { encoding: "gzip", ua: runtime.ua });
    },
  );
});

describe("Bun and Deno servers, the SDK built at module scope and shut down when the server stops", () => {
  const servers = [
    {
      name: "Bun",
      bin: () => join(tools, "@oven", "bun-linux-x64", "bin", "bun"),
      args: ["run", "server-bun.mjs"],
      ua: UA("bun 1\\.\\d+\\.\\d+; linux x64"),
    },
    {
      name: "Deno",
      bin: () => join(tools, "@deno", "linux-x64-glibc", "deno"),
      args: ["run", "--allow-net=127.0.0.1", "--allow-env", "--allow-read", "server-deno.mjs"],
      ua: UA("deno 2\\.\\d+\\.\\d+; linux x86_64"),
    },
  ];

  it.each(servers)("$name: delivers every request, gzip-compressed, naming the runtime", async (runtime) => {
    const sink = await proxy();
    const child = spawn(runtime.bin(), runtime.args, {
      cwd: appDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...svcEnv(sink.url) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => lines.push(...chunk.split("\n").filter(Boolean)));
    try {
      await until(() => lines.length > 0, 30_000);
      const { port } = JSON.parse(lines[0] ?? "{}") as { port: number };
      const traceIds: string[] = [];
      for (let i = 1; i <= REQUESTS; i++) {
        const answer = await fetch(`http://127.0.0.1:${port}/?name=${runtime.name}-server-${i}`);
        traceIds.push(((await answer.json()) as { traceId: string }).traceId);
      }
      child.kill("SIGTERM");
      await until(() => lines.length > 1, 30_000);
      const { logged } = JSON.parse(lines.at(-1) ?? "{}") as Outcome;

      expectDelivered({ traceIds, logged }, sink.seen, { encoding: "gzip", ua: runtime.ua, perRequest: false });
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("Cloudflare Workers (workerd through Miniflare), each request flushed in ctx.waitUntil", () => {
  const variants = [
    { entry: "worker.mjs", construction: "at module scope", compat: false },
    { entry: "worker.mjs", construction: "at module scope", compat: true },
    { entry: "worker-lazy.mjs", construction: "on the first request", compat: false },
    { entry: "worker-lazy.mjs", construction: "on the first request", compat: true },
  ];

  it.each(variants)(
    "built $construction, nodejs_compat $compat: every request of one isolate delivers, uncompressed",
    async ({ entry, compat }) => {
      const sink = await proxy();
      const script = await bundle(entry, {
        conditions: ["workerd", "worker", "browser"],
        external: compat ? ["cloudflare:*", "node:*"] : ["cloudflare:*"],
      });
      const { Miniflare } = (await import(pathToFileURL(join(tools, "miniflare", "dist", "src", "index.js")).href)) as {
        Miniflare: new (
          options: object,
        ) => {
          dispatchFetch(url: string): Promise<Response>;
          dispose(): Promise<void>;
        };
      };
      const worker = new Miniflare({
        modules: true,
        script,
        compatibilityDate: "2025-09-01",
        compatibilityFlags: compat ? ["nodejs_compat"] : [],
        bindings: svcEnv(sink.url),
      });
      try {
        const traceIds: string[] = [];
        for (let i = 1; i <= REQUESTS; i++) {
          const answer = await worker.dispatchFetch(`http://worker/?name=${entry}-${compat}-${i}`);
          traceIds.push(((await answer.json()) as { traceId: string }).traceId);
        }
        await until(() => traceIds.every((id) => delivered(id)));
        const { logged } = (await (await worker.dispatchFetch("http://worker/")).json()) as Outcome;

        expectDelivered({ traceIds, logged }, sink.seen, { encoding: undefined, ua: UA("cloudflare-workers") });
      } finally {
        await worker.dispose();
      }
    },
  );
});

describe("Vercel Edge (edge-runtime), each request flushed in waitUntil", () => {
  it("delivers every request, uncompressed, naming the runtime", async () => {
    const sink = await proxy();
    const code = await bundle("edge.mjs", { conditions: ["edge-light", "worker", "browser"] });
    const { EdgeRuntime } = (await import(pathToFileURL(join(tools, "edge-runtime", "dist", "index.js")).href)) as {
      EdgeRuntime: new (
        options: object,
      ) => {
        dispatchFetch(url: string): Promise<Response & { waitUntil(): Promise<unknown> }>;
      };
    };
    const env = svcEnv(sink.url);
    const runtime = new EdgeRuntime({
      initialCode: code,
      // What Vercel gives an Edge Function: its environment variables on process.env.
      extend: (context: Record<string, unknown>) => Object.assign(context, { process: { env } }),
    });
    const traceIds: string[] = [];
    for (let i = 1; i <= REQUESTS; i++) {
      const answer = await runtime.dispatchFetch(`http://edge/?name=edge-${i}`);
      traceIds.push(((await answer.json()) as { traceId: string }).traceId);
      await answer.waitUntil();
    }
    const { logged } = (await (await runtime.dispatchFetch("http://edge/")).json()) as Outcome;

    expectDelivered({ traceIds, logged }, sink.seen, { encoding: undefined, ua: UA("vercel-edge") });
  });
});

describe("a browser (headless Chromium)", () => {
  it("SvcBrowserClient.score() delivers from a page, through the CORS preflight", async () => {
    const sink = await proxy();
    const executablePath = chromiumBinary();
    const script = await bundle("browser.mjs", { conditions: ["browser"], format: "iife" });
    const page = await servePage(sink.url, script);
    const { chromium } = (await import(pathToFileURL(join(tools, "playwright-core", "index.mjs")).href)) as {
      chromium: {
        launch(options: object): Promise<{
          newPage(): Promise<{
            goto(url: string): Promise<unknown>;
            evaluate<T>(fn: (arg: string) => Promise<T>, arg: string): Promise<T>;
            on(event: "console", fn: (message: { type(): string; text(): string }) => void): void;
          }>;
          close(): Promise<void>;
        }>;
      };
    };
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true, timeout: 60_000 });
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await tab.goto(page.url);
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      const result = await tab.evaluate(
        (id) => (window as unknown as { sendScore(id: string): Promise<{ id: string } | undefined> }).sendScore(id),
        traceId,
      );

      expect(result?.id).toEqual(expect.any(String));
      expect(server.store.scores.get(result?.id ?? "")).toMatchObject({ traceId, name: "user-feedback", value: 1 });
      const posts = sink.seen.filter((r) => r.method === "POST");
      expect(posts.map((r) => r.path)).toEqual(["/api/public/scores"]);
      expect(posts[0]?.origin).toBe(new URL(page.url).origin);
      expect(posts[0]?.userAgent).toMatch(/Chrome\/\d+/);
      expect(sink.seen.filter((r) => r.method === "OPTIONS").map((r) => r.status)).toEqual([204]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await page.close();
    }
  });
});

function delivered(traceId: string): boolean {
  const names = server.store.spansOfTrace(traceId).map((s) => s.name);
  return names.includes("llm-call") && [...server.store.scores.values()].some((s) => s.traceId === traceId);
}

/** Waits (at most `limitMs`) until `done()` holds; the assertions that follow say what is missing if it never does. */
async function until(done: () => boolean, limitMs = 10_000): Promise<void> {
  for (let i = 0; i < limitMs / 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Serves a page that loads the bundled script with the dev server's address and public key. */
async function servePage(baseUrl: string, script: string) {
  const html = `<!doctype html><html><head><script>window.SVC_BASE_URL=${JSON.stringify(baseUrl)};window.SVC_PUBLIC_KEY=${JSON.stringify(server.publicKey)};</script><script src="/app.js"></script></head><body>app</body></html>`;
  const pages = createServer((req, res) => {
    if (req.url === "/app.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else if (req.url === "/") res.writeHead(200, { "content-type": "text/html" }).end(html);
    else if (req.url === "/favicon.ico") res.writeHead(204).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  const { port } = pages.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        pages.closeAllConnections();
        pages.close(() => resolve());
      }),
  };
}
