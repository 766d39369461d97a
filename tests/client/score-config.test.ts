import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/core";
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
    const logs = captureLogs(LogLevel.INFO);
    new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk" });
    expect(logs).toContainEqual({ level: "warn", message: expect.stringContaining('ignoring SVC_FLUSH_AT="many"') });
  });

  it.each([
    ["flushInterval", -1, "option flushInterval=-1 is not a number > 0; using 1 (default)"],
    ["flushAt", 2.5, "option flushAt=2.5 is not a whole number > 0; using 10 (default)"],
    ["scoreMaxQueueSize", Number.NaN, "option scoreMaxQueueSize=NaN is not a whole number > 0; using 100000 (default)"],
  ])("warns about %s = %s, naming the value used instead, and does not throw", (option, value, message) => {
    const logs = captureLogs(LogLevel.INFO);

    new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk", [option]: value });

    expect(logs).toEqual([{ level: "warn", message: `[Svc SDK] SvcClient: ${message}` }]);
  });

  it("takes 0 as not set, as the previous major did, without a warning", () => {
    const logs = captureLogs(LogLevel.INFO);

    new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk", flushAt: 0, flushInterval: 0 });

    expect(logs).toEqual([]);
  });

  it("names the closest known option for an unknown one", () => {
    const logs = captureLogs(LogLevel.INFO);

    new SvcClient({ baseUrl: "http://127.0.0.1:9", publicKey: "pk", secretKey: "sk", flushInteval: 2 } as never);

    expect(logs).toEqual([
      {
        level: "warn",
        message: '[Svc SDK] SvcClient: unknown option "flushInteval" is ignored; did you mean "flushInterval"?',
      },
    ]);
  });
});
