import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer } from "../support/http-server.ts";
import { ROOT } from "../support/packages.ts";

const run = promisify(execFile);

/**
 * Rarely used parts that load on first use (and only those: the managers, `svc.api` and its typed errors are in the
 * entry), by package, each with a line of its code: the main entry (and the chunks
 * it imports statically) must not hold it, the package must.
 */
const LOADED_ON_FIRST_USE: Record<string, Record<string, string>> = {
  client: {
    doctor: "function checkClock(",
    "experiment runner": "function runExperiment(",
  },
  // The OTLP encoders are the core's (the span processor and the doctor both encode spans), built into @svc/tracing.
  tracing: { "media upload": "function uploadOnce(", "OTLP/protobuf encoder": "function* encodeTraceRequestProtobuf(" },
};

/** The files an entry of a built package loads when it is loaded: itself and its static imports of local chunks. */
function loadedAtStart(dist: string, entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(dist, file), "utf8");
    // Static imports and requires only: `import("./x.js")` is what loads on first use.
    for (const [, local] of text.matchAll(/(?:\bfrom\s*|\brequire\()\s*['"]\.\/([^'"]+)['"]/g))
      pending.push(local as string);
  }
  return [...seen];
}

describe("the parts loaded on first use", () => {
  it.each(Object.keys(LOADED_ON_FIRST_USE))("are not in the main entry of @svc/%s, in either format", (name) => {
    const dist = join(ROOT, "packages", name, "dist");
    const everything = readdirSync(dist)
      .filter((file) => /\.c?js$/.test(file))
      .map((file) => readFileSync(join(dist, file), "utf8"))
      .join("\n");
    for (const entry of ["index.js", "index.cjs"]) {
      const atStart = loadedAtStart(dist, entry)
        .map((file) => readFileSync(join(dist, file), "utf8"))
        .join("\n");
      for (const [part, marker] of Object.entries(LOADED_ON_FIRST_USE[name] ?? {})) {
        expect(everything, `${part} is built into @svc/${name}`).toContain(marker);
        expect(atStart.includes(marker), `${part} in the ${entry} of @svc/${name} and its static imports`).toBe(false);
      }
    }
  });

  it.each([
    ["ES module", "import"],
    ["CommonJS", "require"],
  ])(
    "load and work from the %s build: doctor, experiment, protobuf export, media upload, svc.api, prompt, dataset, media",
    async (_, how) => {
      const server = await startServer((req) => {
        if (req.path === "/api/public/projects") return { json: { data: [{ id: "project-1" }] } };
        if (req.path === "/api/public/health") return { json: { status: "OK", version: "4.60.0" } };
        if (req.path === "/api/public/media") return { json: { mediaId: "unknown", uploadUrl: null } };
        if (req.path === "/api/public/v2/prompts/greeting") {
          return {
            json: {
              name: "greeting",
              version: 3,
              type: "text",
              prompt: "Hi {{who}}",
              labels: [],
              tags: [],
              config: {},
            },
          };
        }
        if (req.path === "/api/public/v2/datasets/qa") return { json: { id: "ds-1", name: "qa" } };
        if (req.path === "/api/public/scores/missing") return { status: 404, json: { message: "no such score" } };
        if (req.path === "/api/public/dataset-items") {
          return { json: { data: [{ id: "item-1", input: 1, expectedOutput: 2 }], meta: { totalPages: 1 } } };
        }
        return { json: {} };
      });
      onTestFinished(server.close);
      const load = (pkg: string) =>
        how === "import" ? `await import(${JSON.stringify(pkg)})` : `require(${JSON.stringify(pkg)})`;
      const script = `(async () => {
      const { BasicTracerProvider } = ${load("@opentelemetry/sdk-trace-base")};
      const { setSvcTracerProvider, startObservation } = ${load("@svc/tracing")};
      const { SvcSpanProcessor } = ${load("@svc/otel")};
      const { NotFoundError, SvcClient } = ${load("@svc/client")};
      const keys = { baseUrl: ${JSON.stringify(server.url)}, publicKey: "pk-test", secretKey: "sk-test" };
      const processor = new SvcSpanProcessor({ ...keys, protocol: "http/protobuf" });
      const provider = new BasicTracerProvider({ spanProcessors: [processor] });
      setSvcTracerProvider(provider);
      startObservation("with media", { input: { image: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==" } }).end();
      await provider.forceFlush();
      const svc = new SvcClient(keys);
      const report = await svc.doctor({ timeout: 5 });
      const result = await svc.experiment.run({ name: "lazy", data: [{ input: 1 }], task: ({ input }) => input + 1 });
      const health = await svc.api.health.health();
      const deleted = await svc.api.projects.deleteApiKey("p 1", "k/2", {}, { maxRetries: 0 }).withRawResponse();
      const failed = await svc.api.scores.delete("missing", {}, { maxRetries: 0 }).catch((error) => error);
      const prompt = await svc.prompt.get("greeting", { type: "text" });
      const cached = await svc.prompt.get("greeting", { type: "text" });
      const dataset = await svc.dataset.get("qa");
      const resolved = await svc.media.resolveReferences({ obj: { note: "no media" }, resolveWith: "base64DataUri" });
      await provider.shutdown();
      await svc.shutdown();
      console.log(JSON.stringify({
        checks: report.checks.map((check) => check.name),
        item: result.itemResults[0] && { status: result.itemResults[0].status, output: result.itemResults[0].output },
        experimentUrl: result.experimentUrl,
        health,
        deletedStatus: deleted.rawResponse.status,
        failed: { notFound: failed instanceof NotFoundError, status: failed.statusCode, message: failed.message },
        prompt: { compiled: prompt.compile({ who: "Ada" }), version: prompt.version, sameObject: cached === prompt },
        promptHealth: svc.prompt.health(),
        dataset: { id: dataset.id, items: dataset.items.map((item) => item.id), run: typeof dataset.runExperiment },
        resolved,
        mediaHealth: svc.media.health(),
      }));
    })();`;
      const args = how === "import" ? ["--input-type=module", "-e", script] : ["-e", script];
      const { stdout } = await run(process.execPath, args, { cwd: join(ROOT, "bench"), timeout: 60_000 });

      const out = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
        checks: string[];
        item: { status: string; output: unknown };
        experimentUrl: string;
        health: unknown;
        deletedStatus: number;
        failed: { notFound: boolean; status: number; message: string };
        prompt: { compiled: string; version: number; sameObject: boolean };
        promptHealth: { requests: number; cached: number };
        dataset: { id: string; items: string[]; run: string };
        resolved: unknown;
        mediaHealth: { requests: number; unresolved: number };
      };
      expect(out.checks).toEqual(expect.arrayContaining(["keys", "server", "credentials", "tracer provider"]));
      expect(out.item).toEqual({ status: "ok", output: 2 });
      expect(out.experimentUrl).toContain("/project/project-1/experiments/results");
      const traces = server.seen.filter((req) => req.path === "/api/public/otel/v1/traces" && req.method === "POST");
      expect(traces.some((req) => req.headers["content-type"] === "application/x-protobuf")).toBe(true);
      expect(server.seen.some((req) => req.method === "POST" && req.path === "/api/public/media")).toBe(true);
      expect(out.health).toEqual({ status: "OK", version: "4.60.0" });
      expect(out.deletedStatus).toBe(200);
      const deletion = server.seen.find((req) => req.method === "DELETE");
      expect(deletion?.path).toBe("/api/public/projects/p%201/apiKeys/k%2F2");
      expect(deletion?.headers.authorization).toMatch(/^Basic /);
      expect(out.failed).toEqual({
        notFound: true,
        status: 404,
        message: expect.stringContaining("Status 404 from DELETE /api/public/scores/missing"),
      });
      expect(out.prompt).toEqual({ compiled: "Hi Ada", version: 3, sameObject: true });
      expect(out.promptHealth).toMatchObject({ requests: 1, cached: 1 });
      expect(out.dataset).toEqual({ id: "ds-1", items: ["item-1"], run: "function" });
      expect(out.resolved).toEqual({ note: "no media" });
      expect(out.mediaHealth).toMatchObject({ requests: 0, unresolved: 0 });
    },
  );
});

/**
 * The chunks the copy below goes without: every chunk named after a module loaded on first use (the doctor, the
 * experiment runner, the OTLP/protobuf encoder, media upload), in both formats; `chunk-<hash>` files are shared code
 * that entries import statically.
 */
const DELETED_CHUNKS = /^(?!chunk-)[a-z-]+-[A-Z0-9]{8}\.c?js$/;

/**
 * A copy of the built packages in `dir`/node_modules without the chunks of DELETED_CHUNKS, as deploy tools that copy
 * only the files they see imported make it. Each package finds its dependencies (but not its `@svc` neighbours, which
 * are the copies) where the workspace installed them.
 */
function copyWithoutChunks(dir: string): string[] {
  const deleted: string[] = [];
  for (const name of ["tracing", "otel", "client"]) {
    const from = join(ROOT, "packages", name);
    const to = join(dir, "node_modules", "@svc", name);
    cpSync(from, to, { recursive: true, filter: (src) => !/\/(?:node_modules|src)$/.test(src) });
    for (const file of readdirSync(join(to, "dist")).filter((file) => DELETED_CHUNKS.test(file))) {
      rmSync(join(to, "dist", file));
      deleted.push(file);
    }
    for (const scope of readdirSync(join(from, "node_modules")).filter((entry) => entry !== "@svc")) {
      mkdirSync(join(to, "node_modules"), { recursive: true });
      symlinkSync(realpathSync(join(from, "node_modules", scope)), join(to, "node_modules", scope));
    }
  }
  const sdk = "@opentelemetry/sdk-trace-base";
  mkdirSync(join(dir, "node_modules", "@opentelemetry"), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, "bench", "node_modules", sdk)), join(dir, "node_modules", sdk));
  return deleted;
}

describe("a copy of the packages whose lazily loaded chunks are missing", () => {
  it.each([
    ["ES module", "import"],
    ["CommonJS", "require"],
  ])("keeps every documented guarantee, from the %s build", async (_, how) => {
    const dir = mkdtempSync(join(tmpdir(), "svc-missing-chunks-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const deleted = copyWithoutChunks(dir);
    const server = await startServer((req) => {
      if (req.path.startsWith("/api/public/v2/prompts/")) return { status: 404, json: { message: "no such prompt" } };
      if (req.path === "/api/public/scores/missing") return { status: 404, json: { message: "no such score" } };
      if (req.path === "/api/public/v2/datasets/qa") return { json: { id: "ds-1", name: "qa" } };
      if (req.path === "/api/public/dataset-items") return { json: { data: [{ id: "i-1", input: 1 }], meta: {} } };
      return { json: {} };
    });
    onTestFinished(server.close);
    const load = (pkg: string) =>
      how === "import" ? `await import(${JSON.stringify(pkg)})` : `require(${JSON.stringify(pkg)})`;
    const script = `(async () => {
      const { BasicTracerProvider } = ${load("@opentelemetry/sdk-trace-base")};
      const { setSvcTracerProvider, startObservation } = ${load("@svc/tracing")};
      const { SvcSpanProcessor } = ${load("@svc/otel")};
      const { NotFoundError, SvcClient } = ${load("@svc/client")};
      const keys = { baseUrl: ${JSON.stringify(server.url)}, publicKey: "pk-test", secretKey: "sk-test" };
      const traced = async (protocol) => {
        const provider = new BasicTracerProvider({ spanProcessors: [new SvcSpanProcessor({ ...keys, protocol })] });
        setSvcTracerProvider(provider);
        startObservation("with media", { input: { image: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==" } }).end();
        await provider.forceFlush();
        await provider.shutdown();
      };
      await traced("http/json");
      await traced("http/protobuf");
      const svc = new SvcClient(keys);
      const report = await svc.doctor({ timeout: 5 });
      const prompt = await svc.prompt.get("greeting", { type: "text", fallback: "Hi {{who}}", maxRetries: 0 });
      const failed = await svc.api.scores.delete("missing", {}, { maxRetries: 0 }).catch((error) => error);
      const { prompt: promptHealth } = svc.health();
      const experiment = { name: "lazy", data: [{ input: 1 }], task: ({ input }) => input };
      const dataset = await svc.dataset.get("qa");
      const runs = await Promise.all([
        svc.experiment.run(experiment).catch((error) => error),
        dataset.runExperiment({ name: "lazy", task: ({ input }) => input }).catch((error) => error),
      ]);
      const unnamed = await svc.experiment.run({ ...experiment, name: "" }).catch((error) => error);
      await svc.shutdown();
      console.log(JSON.stringify({
        doctor: { ok: report.ok, checks: report.checks },
        prompt: { compiled: prompt.compile({ who: "Ada" }), isFallback: prompt.isFallback },
        failed: { notFound: failed instanceof NotFoundError, status: failed.statusCode },
        promptHealth: { requests: promptHealth.requests, failures: promptHealth.failures, fallbacks: promptHealth.fallbacks },
        runs: runs.map((error) => ({ name: error.name, message: error.message, cause: String(error.cause) })),
        unnamed: { type: unnamed.constructor.name, message: unnamed.message },
      }));
    })();`;
    const args = how === "import" ? ["--input-type=module", "-e", script] : ["-e", script];
    const { stdout, stderr } = await run(process.execPath, args, { cwd: dir, timeout: 60_000 });

    expect(deleted.map((file) => file.replace(/-[A-Z0-9]{8}\./, ".")).sort()).toEqual([
      "client-doctor.cjs",
      "client-doctor.js",
      "otlp-protobuf.cjs",
      "otlp-protobuf.js",
      "run-experiment.cjs",
      "run-experiment.js",
      "upload-once.cjs",
      "upload-once.js",
    ]);
    const out = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(out.doctor).toEqual({
      ok: false,
      checks: [
        {
          name: "doctor",
          status: "fail",
          detail: expect.stringContaining("the checks could not be loaded"),
          fix: expect.stringContaining("reinstall it, and have the bundler or deploy tool keep the files it loads"),
        },
      ],
    });
    expect(out.prompt).toEqual({ compiled: "Hi Ada", isFallback: true });
    expect(out.failed).toEqual({ notFound: true, status: 404 });
    expect(out.promptHealth).toEqual({ requests: 1, failures: 1, fallbacks: 1 });
    // The experiment runner, from svc.experiment.run() and dataset.runExperiment(): a typed error naming the fix, the
    // load's own error as its cause, one log line with the fix and a count for the second run; options are still
    // checked as documented.
    expect(out.runs).toEqual([
      {
        name: "SvcModuleLoadError",
        message: expect.stringContaining("the experiment runner could not be loaded; the installed @svc/client lacks"),
        cause: expect.stringMatching(/Cannot find module|ERR_MODULE_NOT_FOUND/),
      },
      expect.objectContaining({ name: "SvcModuleLoadError" }),
    ]);
    expect(out.unnamed).toEqual({
      type: "TypeError",
      message: "ExperimentManager.run: option name must be a non-empty string",
    });
    const loadLines = stderr.split("\n").filter((line) => line.includes("the experiment runner could not be loaded"));
    expect(loadLines).toEqual([
      expect.stringContaining("reinstall it, and have the bundler or deploy tool keep the files it loads"),
      expect.stringContaining("happened 1 more time(s)"),
    ]);
    // The OTLP/JSON export goes out without its media uploaded; the OTLP/protobuf one cannot be encoded.
    const traces = server.seen.filter((req) => req.path === "/api/public/otel/v1/traces");
    expect(traces.map((req) => req.headers["content-type"])).toEqual(["application/json"]);
    expect(server.seen.some((req) => req.path === "/api/public/media")).toBe(false);
    expect(stderr).toContain("SvcSpanProcessor: media upload failed; the span keeps its media reference");
    expect(stderr).toContain("SvcSpanProcessor: spans dropped, could not be sent: 1 span: encoding failed");
  });
});
