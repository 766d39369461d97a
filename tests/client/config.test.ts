import { DEFAULT_BASE_URL, resolveClientConfig } from "@svc/client";
import { describe, expect, it } from "vitest";
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
});
