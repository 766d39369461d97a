import { SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

describe("score settings", () => {
  it("prefers the flushAt option over SVC_FLUSH_AT", async () => {
    vi.stubEnv("SVC_FLUSH_AT", "1000");
    vi.stubEnv("SVC_FLUSH_INTERVAL", "3600");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const server = await startServer();
    onTestFinished(() => server.close());
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk", flushAt: 1 });
    svc.score.create({ name: "a", value: 1 });
    await vi.waitFor(() => expect(server.seen).toHaveLength(1), { timeout: 2000, interval: 5 });
  });

  it("ignores an invalid SVC_FLUSH_AT with a warning naming the variable", () => {
    vi.stubEnv("SVC_FLUSH_AT", "many");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const logs = captureLogs();
    new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk" });
    expect(logs).toContainEqual({ level: "warn", message: expect.stringContaining('SVC_FLUSH_AT="many"') });
  });

  it.each([
    ["flushAt", 0],
    ["flushInterval", -1],
    ["scoreMaxRetries", 1.5],
    ["scoreMaxQueueSize", Number.NaN],
  ])("throws a TypeError naming the option for %s = %s", (option, value) => {
    expect(
      () => new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk", [option]: value }),
    ).toThrow(new RegExp(`option ${option}`));
  });
});
