import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/core";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const KEYS = { SVC_PUBLIC_KEY: "pk", SVC_SECRET_KEY: "sk-secret" };
/** The hosted server, the documented default address. */
const HOSTED = "https://cloud.svc.dev";
/** The variables these tests set; each test starts without any of them. */
const VARIABLES = [
  "SVC_PUBLIC_KEY",
  "SVC_SECRET_KEY",
  "SVC_BASE_URL",
  "SVC_BASEURL",
  "SVC_FLUSH_AT",
  "OTEL_SDK_DISABLED",
];

/** A client made with `params` in an environment of `env` (and none of the other VARIABLES), shut down at the end. */
function clientWith(params: ConstructorParameters<typeof SvcClient>[0], env: Record<string, string | undefined>) {
  for (const name of VARIABLES) vi.stubEnv(name, env[name]);
  const svc = new SvcClient(params);
  vi.unstubAllEnvs();
  onTestFinished(() => svc.shutdown());
  return svc;
}

/** The settings of a client made with `params` in an environment of `env`. */
const configOf = (params: ConstructorParameters<typeof SvcClient>[0], env: Record<string, string | undefined>) =>
  clientWith(params, env).config;

describe("the settings of SvcClient", () => {
  it("prefers the option, then SVC_BASE_URL, then SVC_BASEURL, then the hosted default", () => {
    const env = { ...KEYS, SVC_BASE_URL: "http://env-a", SVC_BASEURL: "http://env-b" };
    expect(configOf({ baseUrl: "http://opt" }, env).baseUrl).toBe("http://opt");
    expect(configOf({}, env).baseUrl).toBe("http://env-a");
    expect(configOf({}, { ...env, SVC_BASE_URL: undefined }).baseUrl).toBe("http://env-b");
    expect(configOf({}, KEYS).baseUrl).toBe(HOSTED);
  });

  it("takes each key from its option, else from SVC_PUBLIC_KEY and SVC_SECRET_KEY", async () => {
    const server = await startServer(() => ({ json: { status: "OK" } }));
    onTestFinished(() => server.close());
    const env = { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env" };
    const fromOptions = clientWith({ baseUrl: server.url, publicKey: "pk-opt", secretKey: "sk-opt" }, env);
    const fromEnv = clientWith({ baseUrl: server.url }, env);

    await fromOptions.api.health.health();
    await fromEnv.api.health.health();

    expect(fromOptions.config.publicKey).toBe("pk-opt");
    expect(server.seen.map((req) => req.headers.authorization)).toEqual([
      `Basic ${btoa("pk-opt:sk-opt")}`,
      `Basic ${btoa("pk-env:sk-env")}`,
    ]);
  });

  it("keeps the credential off the settings' enumerable keys and out of their headers", () => {
    const config = configOf({ publicKey: "pk-opt", secretKey: "sk-opt-secret" }, {});

    expect(config.headers.authorization).toBeUndefined();
    expect(Object.keys(config)).not.toContain("authorization");
    expect(JSON.stringify(config)).not.toContain(btoa("pk-opt:sk-opt-secret"));
  });

  it("warns once, naming the missing keys, and sends no credentials, instead of throwing", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = configOf({ baseUrl: "http://localhost:9" }, {});

    expect(config.hasCredentials).toBe(false);
    expect(config.headers.authorization).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no publicKey and secretKey"),
    ]);
  });

  it("warns about a timeout that is not a positive number and uses the default", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = configOf({ timeout: -1 }, KEYS);

    expect(config.timeoutSeconds).toBe(60);
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] SvcClient: option timeout=-1 is not a number > 0; using 60 (default)",
    ]);
  });

  it("constructs an SvcClient without keys, warning instead of throwing", () => {
    vi.stubEnv("SVC_PUBLIC_KEY", "");
    vi.stubEnv("SVC_SECRET_KEY", "");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const logs = captureLogs(LogLevel.INFO);

    const svc = new SvcClient({ baseUrl: "http://127.0.0.1:9" });

    expect(svc.config.publicKey).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(1);
  });

  it("logs one debug line with each resolved setting and where it came from, the secret key redacted", () => {
    const logs = captureLogs();
    configOf({ timeout: 5 }, { ...KEYS, SVC_FLUSH_AT: "20", OTEL_SDK_DISABLED: "true" });

    // The client's line; its score manager adds one of its own about OTEL_SDK_DISABLED.
    const debug = logs.filter((l) => l.level === "debug" && l.message.includes("SvcClient:")).map((l) => l.message);
    expect(debug).toHaveLength(1);
    for (const part of [
      "SvcClient: created with ",
      `baseUrl="${HOSTED}" (default)`,
      'publicKey="pk" (SVC_PUBLIC_KEY)',
      "secretKey=[redacted] (SVC_SECRET_KEY)",
      "timeout=5 (option)",
      "flushAt=20 (SVC_FLUSH_AT)",
      "flushInterval=1 (default)",
      "scores=off (OTEL_SDK_DISABLED)",
    ])
      expect(debug[0]).toContain(part);
    expect(debug[0]).not.toContain("sk-secret");
  });
});
