import { SvcClient } from "@svc/client";
import { DEFAULT_BASE_URL } from "@svc/core";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { resolveClientConfig } from "../../packages/client/src/config.ts";
import { captureLogs } from "../support/logs.ts";

const KEYS = { SVC_PUBLIC_KEY: "pk", SVC_SECRET_KEY: "sk-secret" };

describe("resolveClientConfig", () => {
  it("prefers the option, then SVC_BASE_URL, then SVC_BASEURL, then the hosted default", () => {
    const env = { ...KEYS, SVC_BASE_URL: "http://env-a", SVC_BASEURL: "http://env-b" };
    expect(resolveClientConfig({ baseUrl: "http://opt" }, env).baseUrl).toBe("http://opt");
    expect(resolveClientConfig({}, env).baseUrl).toBe("http://env-a");
    expect(resolveClientConfig({}, { ...env, SVC_BASE_URL: undefined }).baseUrl).toBe("http://env-b");
    expect(resolveClientConfig({}, KEYS).baseUrl).toBe(DEFAULT_BASE_URL);
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

  it("warns about each missing key and sends no credentials, instead of throwing", () => {
    const logs = captureLogs();
    const config = resolveClientConfig({ baseUrl: "http://localhost:9" }, {});

    expect(config.hasCredentials).toBe(false);
    expect(config.headers.authorization).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no publicKey"),
      expect.stringContaining("no secretKey"),
    ]);
  });

  it("warns about a timeout that is not a positive number and uses the default", () => {
    const logs = captureLogs();
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
    const logs = captureLogs();

    const svc = new SvcClient({ baseUrl: "http://127.0.0.1:9" });

    expect(svc.config.publicKey).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(2);
  });
});
