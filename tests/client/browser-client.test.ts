import { fileURLToPath } from "node:url";
import { SvcClient } from "@svc/client";
import { SvcBrowserClient } from "@svc/client/browser";
import { LogLevel } from "@svc/core";
import { build } from "esbuild";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { type Reply, type SeenRequest, startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

async function setup(reply: (req: SeenRequest) => Reply = () => ({ json: { accepted: 1 } })) {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  const svc = new SvcBrowserClient({
    publicKey: "pk-1",
    baseUrl: server.url,
    environment: "web",
    additionalHeaders: { "x-team": "a", Authorization: "Basic stolen", "X-Svc-Sdk-Name": "spoof" },
  });
  return { server, svc };
}

describe("SvcBrowserClient.score", () => {
  it("posts the score as a one-item array to /api/public/scores with Bearer public-key auth only", async () => {
    const { server, svc } = await setup();
    const result = await svc.score({ name: "feedback", value: 1, traceId: "t-1" });

    const [request] = server.seen;
    expect(request).toMatchObject({ method: "POST", path: "/api/public/scores" });
    expect(request?.headers.authorization).toBe("Bearer pk-1");
    expect(request?.headers["x-svc-public-key"]).toBe("pk-1");
    expect(request?.headers["x-svc-sdk-name"]).toBe("javascript");
    expect(request?.headers["x-svc-sdk-integration"]).toBe("browser");
    expect(request?.headers["x-team"]).toBe("a");
    const body = request?.json as Array<Record<string, unknown>>;
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ name: "feedback", value: 1, traceId: "t-1", environment: "web" });
    expect(body[0]?.timestamp).toEqual(expect.any(String));
    expect(result).toEqual({ id: body[0]?.id });
  });

  it("drops an invalid score with an error log and sends nothing", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const { server, svc } = await setup();
    expect(await svc.score({ name: "", value: 1 })).toBeUndefined();
    expect(await svc.score({ name: "x", value: Number.NaN })).toBeUndefined();
    expect(server.seen).toHaveLength(0);
    expect(logs.filter((l) => l.level === "error")).toHaveLength(2);
  });

  it("logs 1,000 scores with an empty name once, and their count on a repeat ten seconds later", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const logs = captureLogs(LogLevel.INFO);
    const { server, svc } = await setup();

    for (let i = 0; i < 1_000; i++) await svc.score({ name: "", value: i });
    expect(logs).toHaveLength(1);
    vi.advanceTimersByTime(10_000);
    await svc.score({ name: " ", value: 0 });

    expect(server.seen).toHaveLength(0);
    expect(logs).toEqual([
      { level: "error", message: "[Svc SDK] SvcBrowserClient: score dropped: name must be a non-empty string" },
      {
        level: "error",
        message:
          "[Svc SDK] SvcBrowserClient: score dropped: empty name: happened 1000 more time(s) since the last message",
      },
    ]);
  });

  it("never throws or rejects on hostile input or a failing server", async () => {
    captureLogs(LogLevel.INFO);
    const { svc } = await setup(() => ({ status: 400, json: { message: "bad" } }));
    const cyclic: Record<string, unknown> = { name: "c", value: 1 };
    cyclic.self = cyclic;
    for (const input of [undefined, null, 1, "s", cyclic, { name: "ok", value: 1 }]) {
      await expect(svc.score(input as never)).resolves.toBeUndefined();
    }
  });

  it("logs a 207 partial rejection with the server's errors", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const errors = [{ index: 0, message: "unknown config" }];
    const { svc } = await setup(() => ({ status: 207, json: { accepted: 0, rejected: 1, errors } }));
    expect(await svc.score({ name: "n", value: "v" })).toBeUndefined();
    expect(logs).toContainEqual({
      level: "error",
      message: `[Svc SDK] Svc rejected 1 of 1 scores in batch: ${JSON.stringify(errors)}`,
    });
  });

  it("logs a missing public key instead of throwing, and sends no score", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await startServer();
    onTestFinished(() => server.close());

    const client = new SvcBrowserClient({ baseUrl: server.url } as never);
    const result = await client.score({ name: "n", value: 1 });

    expect(result).toBeUndefined();
    expect(server.seen).toHaveLength(0);
    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      expect.stringContaining("option publicKey is required"),
      expect.stringContaining("score dropped: no publicKey"),
    ]);
  });
});

describe("@svc/client/browser bundle", () => {
  it("bundles for the browser platform with no Node built-in imports", async () => {
    const result = await build({
      entryPoints: [here("../../packages/client/src/browser.ts")],
      bundle: true,
      write: false,
      platform: "browser",
      format: "esm",
      metafile: true,
      logLevel: "silent",
      alias: { "@svc/tracing": here("../../packages/tracing/src/index.ts") },
      define: { __SVC_SDK_VERSION__: '"0.0.0-test"' },
    });

    expect(result.errors).toEqual([]);
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(imports.filter((path) => path.startsWith("node:"))).toEqual([]);
    const code = result.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/from\s*["']node:|require\(["']node:/);
    expect(Object.keys(result.metafile.inputs).some((path) => path.includes("browser-client.ts"))).toBe(true);
  });
});

describe("SvcBrowserClient options", () => {
  it("warns about an invalid value, naming the value used instead, and about an unknown name, without throwing", () => {
    const logs = captureLogs(LogLevel.INFO);

    new SvcBrowserClient({ publicKey: "pk-browser", timeout: -1, maxretries: 1 } as never);

    expect(logs.map((l) => l.message)).toEqual([
      '[Svc SDK] SvcBrowserClient: unknown option "maxretries" is ignored; did you mean "maxRetries"?',
      "[Svc SDK] SvcBrowserClient: option timeout=-1 is not a number > 0; using 10 (default)",
    ]);
  });

  it("ignores an invalid environment with the Node client's warning, and sends scores without one", async () => {
    vi.stubEnv("SVC_TRACING_ENVIRONMENT", "");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const server = await startServer(() => ({ json: { accepted: 1 } }));
    onTestFinished(() => server.close());
    const logs = captureLogs(LogLevel.INFO);
    const rule = '(1-40 characters of a-z, 0-9, _ or -, not starting with "svc")';

    const browser = new SvcBrowserClient({ publicKey: "pk-1", baseUrl: server.url, environment: "svc-Prod" });
    const warned = logs.filter((l) => l.level === "warn").map((l) => l.message);
    logs.length = 0;
    const node = new SvcClient({ publicKey: "pk-1", secretKey: "sk-1", baseUrl: server.url, environment: "svc-Prod" });
    onTestFinished(() => node.shutdown());
    const nodeWarned = logs.filter((l) => l.level === "warn").map((l) => l.message);

    expect(warned).toEqual([
      `[Svc SDK] SvcBrowserClient: option environment="svc-Prod" is not a valid environment ${rule}; using none (default)`,
    ]);
    expect(nodeWarned.map((m) => m.replace("SvcClient", "SvcBrowserClient"))).toEqual(warned);
    await browser.score({ name: "feedback", value: 1 });
    expect(server.seen[0]?.json).toEqual([expect.not.objectContaining({ environment: expect.anything() })]);
  });
});
