import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { svcProvider } from "../support/otel.ts";
import { spillDir, startSpillServer } from "../support/spill.ts";

const KEYS = { publicKey: "pk-test", secretKey: "sk-test" };

function client(baseUrl: string, spillDir: string): SvcClient {
  const svc = new SvcClient({ baseUrl, ...KEYS, spillDir, flushTimeout: 1 });
  onTestFinished(() => svc.shutdown());
  return svc;
}

describe("svc.doctor() with a spill directory", () => {
  it("shows the directory, its size against the bound, and the oldest batch waiting", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("down");
    const dir = spillDir();
    const { processor, svc: tracer } = svcProvider(server, { flushInterval: 3600, flushTimeout: 1, spillDir: dir });
    for (let i = 0; i < 3; i++) tracer.startSpan(`waiting-${i}`).end();
    const before = Date.now();
    await processor.shutdown();

    const report = await client(server.url, dir).doctor({ timeout: 1 });

    const check = report.checks.find((c) => c.name === "spill directory");
    expect(check?.status).toBe("warn");
    expect(check?.detail).toMatch(
      new RegExp(
        `^${dir}: 1 batch file waiting \\(3 spans\\), 0\\.0 MiB of 512 MiB \\(spillMaxBytes\\); the oldest from (\\S+) \\(0 min ago\\)$`,
      ),
    );
    const oldest = Date.parse(/the oldest from (\S+)/.exec(check?.detail ?? "")?.[1] ?? "");
    expect(oldest).toBeGreaterThanOrEqual(before - 1000);
    expect(check?.fix).toContain("sent by the next process that starts with this directory");
    expect(report.toString()).toContain("WARN  spill directory");
  });

  it("passes an empty directory, and fails one that cannot be read, with the fix", async () => {
    captureLogs(LogLevel.ERROR);
    const server = await startSpillServer("up");
    const dir = spillDir();

    const empty = await client(server.url, dir).doctor({ timeout: 1 });
    expect(empty.checks.find((c) => c.name === "spill directory")).toEqual({
      name: "spill directory",
      status: "pass",
      detail: `${dir}: empty, 0.0 MiB of 512 MiB (spillMaxBytes)`,
    });

    const file = join(dir, "a-file");
    writeFileSync(file, "not a directory");
    const broken = await client(server.url, join(file, "spill")).doctor({ timeout: 1 });
    const check = broken.checks.find((c) => c.name === "spill directory");
    expect(check?.status).toBe("fail");
    expect(check?.detail).toContain(`${join(file, "spill")} cannot be read: `);
    expect(check?.fix).toBe(
      "point spillDir (SVC_SPILL_DIR) at a writable directory of a disk that outlives the process, or unset it",
    );
    expect(broken.ok).toBe(false);
  });

  it("has no spill line when no directory is set", async () => {
    const server = await startSpillServer("up");
    const svc = new SvcClient({ baseUrl: server.url, ...KEYS });
    onTestFinished(() => svc.shutdown());

    const report = await svc.doctor({ timeout: 1 });

    expect(report.checks.map((c) => c.name)).not.toContain("spill directory");
  });
});
