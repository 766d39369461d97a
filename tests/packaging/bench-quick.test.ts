import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

const run = promisify(execFile);

// The performance suite in its quick mode, on the built packages: correctness only, never timings.
describe("pnpm bench --quick", () => {
  it("loses no span or score and sends only well-formed requests, with v6 and the peer SDKs", async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, "bench", "run.ts"), "--quick"], {
      cwd: join(ROOT, "bench"),
      timeout: 180_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`bench --quick failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    expect(stdout).toContain("correctness: nothing lost, every request well formed");
    const latest = JSON.parse(readFileSync(join(ROOT, "bench", "results", "quick.json"), "utf8")) as {
      rows: Record<string, Record<string, { spansLost?: number; scoresLost?: number; spansAtFlush?: number }[]>>;
    };
    for (const contender of ["svc", "langsmith", "openinference"]) {
      const rows = latest.rows[contender] ?? {};
      expect(rows["spans-yield"]?.[0]?.spansLost, contender).toBe(0);
      expect(rows["spans-burst"]?.[0]?.spansLost, contender).toBe(0);
    }
    expect(latest.rows.svc?.scores?.[0]?.scoresLost).toBe(0);
    expect(latest.rows.langsmith?.scores?.[0]?.scoresLost).toBe(0);
    // LangSmith runs are counted as spans once created and ended; each trace is 10 of them.
    expect(latest.rows.langsmith?.["spans-yield"]?.[0]?.spansAtFlush).toBe(1000);
  });
});
