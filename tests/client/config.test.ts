import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/core";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { resolveClientConfig } from "../../packages/client/src/config.ts";
import { captureLogs } from "../support/logs.ts";

const KEYS = { SVC_PUBLIC_KEY: "pk", SVC_SECRET_KEY: "sk-secret" };
/** The hosted server, the documented default address. */
const HOSTED = "https://cloud.svc.dev";

describe("resolveClientConfig", () => {
  it("prefers the option, then SVC_BASE_URL, then SVC_BASEURL, then the hosted default", () => {
    const env = { ...KEYS, SVC_BASE_URL: "http://env-a", SVC_BASEURL: "http://env-b" };
    expect(resolveClientConfig({ baseUrl: "http://opt" }, env).baseUrl).toBe("http://opt");
    expect(resolveClientConfig({}, env).baseUrl).toBe("http://env-a");
    expect(resolveClientConfig({}, { ...env, SVC_BASE_URL: undefined }).baseUrl).toBe("http://env-b");
    expect(resolveClientConfig({}, KEYS).baseUrl).toBe(HOSTED);
  });

  it("takes each key from its option, else from SVC_PUBLIC_KEY and SVC_SECRET_KEY", () => {
    const env = { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env" };
    const fromOptions = resolveClientConfig({ publicKey: "pk-opt", secretKey: "sk-opt" }, env);
    const fromEnv = resolveClientConfig({}, env);

    expect(fromOptions.publicKey).toBe("pk-opt");
    expect(fromOptions.authorization).toBe(`Basic ${btoa("pk-opt:sk-opt")}`);
    expect(fromEnv.authorization).toBe(`Basic ${btoa("pk-env:sk-env")}`);
  });

  it("keeps the credential off the settings' enumerable keys and out of their headers", () => {
    const config = resolveClientConfig({ publicKey: "pk-opt", secretKey: "sk-opt-secret" }, {});

    expect(config.headers.authorization).toBeUndefined();
    expect(Object.keys(config)).not.toContain("authorization");
    expect(JSON.stringify(config)).not.toContain(btoa("pk-opt:sk-opt-secret"));
  });

  it("warns once, naming the missing keys, and sends no credentials, instead of throwing", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveClientConfig({ baseUrl: "http://localhost:9" }, {});

    expect(config.hasCredentials).toBe(false);
    expect(config.headers.authorization).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no publicKey and secretKey"),
    ]);
  });

  it("warns about a timeout that is not a positive number and uses the default", () => {
    const logs = captureLogs(LogLevel.INFO);
    const config = resolveClientConfig({ timeout: -1 }, KEYS);

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
    resolveClientConfig({ timeout: 5 }, { ...KEYS, SVC_FLUSH_AT: "20", OTEL_SDK_DISABLED: "true" });

    const debug = logs.filter((l) => l.level === "debug").map((l) => l.message);
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
