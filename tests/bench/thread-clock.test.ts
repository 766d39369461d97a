import { describe, expect, it } from "vitest";
import { threadClock } from "../../bench/thread-clock.ts";

function spin(rounds: number): number {
  let x = 0;
  for (let i = 0; i < rounds; i++) x = (x * 31 + i) | 0;
  return x;
}

describe("bench thread clock", () => {
  it("reads schedstat on Linux, which advances between any two reads however close", () => {
    const clock = threadClock({});
    const steps: number[] = [];

    for (let i = 0; i < 1000; i++) {
      const before = clock.nowUs();
      steps.push(clock.nowUs() - before);
    }

    expect(clock.kind).toBe(process.platform === "linux" ? "schedstat" : "getrusage");
    // A clock brought up to date only at scheduler events reads the same value across most of these pairs.
    if (clock.kind === "schedstat") expect(steps.filter((step) => step <= 0)).toEqual([]);
  });

  it("counts no more than the whole process's CPU time over the same work", () => {
    const clock = threadClock({});
    const process0 = process.cpuUsage();
    const thread0 = clock.nowUs();
    spin(2_000_000);
    const threadUs = clock.nowUs() - thread0;
    const processCpu = process.cpuUsage(process0);

    expect(threadUs).toBeGreaterThan(0);
    // process.cpuUsage() truncates to whole microseconds, at both ends.
    expect(threadUs).toBeLessThanOrEqual(processCpu.user + processCpu.system + 2);
  });

  it("falls back to process.threadCpuUsage() and says why when BENCH_THREAD_CLOCK=getrusage", () => {
    const clock = threadClock({ BENCH_THREAD_CLOCK: "getrusage" });
    const first = clock.nowUs();

    expect(clock.kind).toBe("getrusage");
    expect(clock.note).toContain("BENCH_THREAD_CLOCK=getrusage");
    expect(clock.nowUs()).toBeGreaterThanOrEqual(first);
  });
});
