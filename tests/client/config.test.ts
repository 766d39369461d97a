import { DEFAULT_BASE_URL, resolveClientConfig, SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";

describe("resolveClientConfig", () => {
  it("prefers the option, then SVC_BASE_URL, then SVC_BASEURL, then the hosted default", () => {
    const env = {
      SVC_BASE_URL: "http://env-a",
      SVC_BASEURL: "http://env-b",
      SVC_PUBLIC_KEY: "pk",
      SVC_SECRET_KEY: "sk",
    };
    expect(resolveClientConfig({ baseUrl: "http://opt" }, env).baseUrl).toBe("http://opt");
    expect(resolveClientConfig({}, env).baseUrl).toBe("http://env-a");
    expect(resolveClientConfig({}, { ...env, SVC_BASE_URL: undefined }).baseUrl).toBe("http://env-b");
    expect(resolveClientConfig({}, { SVC_PUBLIC_KEY: "pk", SVC_SECRET_KEY: "sk" }).baseUrl).toBe(DEFAULT_BASE_URL);
  });

  it("takes each key from its option, else from SVC_PUBLIC_KEY and SVC_SECRET_KEY", () => {
    const env = { SVC_PUBLIC_KEY: "pk-env", SVC_SECRET_KEY: "sk-env" };

    expect(resolveClientConfig({ publicKey: "pk-opt", secretKey: "sk-opt" }, env)).toMatchObject({
      publicKey: "pk-opt",
      secretKey: "sk-opt",
    });
    expect(resolveClientConfig({}, env)).toMatchObject({ publicKey: "pk-env", secretKey: "sk-env" });
  });

  it("warns about each missing key instead of throwing", () => {
    const logs = captureLogs();
    const config = resolveClientConfig({ baseUrl: "http://x" }, {});
    expect(config.publicKey).toBeUndefined();
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining("no public key"),
      expect.stringContaining("no secret key"),
    ]);
  });

  it("throws a TypeError naming the option for a timeout that is not a positive number", () => {
    expect(() => resolveClientConfig({ timeout: -1, publicKey: "pk", secretKey: "sk" }, {})).toThrow(/timeout/);
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
