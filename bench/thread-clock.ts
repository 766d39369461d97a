// The app thread's CPU time, exact at every read, without native code.
// Linux keeps a thread's CPU time (sum_exec_runtime) up to date only at scheduler events (ticks, switches);
// getrusage(RUSAGE_THREAD), behind process.threadCpuUsage(), and /proc/thread-self/schedstat both report that value
// as it was at the last event. getrusage(RUSAGE_SELF), behind process.cpuUsage(), first brings the calling thread's
// value up to date, so schedstat read right after it gives the thread's CPU time at that moment, in nanoseconds.
import { openSync, readSync } from "node:fs";

/** A clock of one thread's CPU time, in microseconds. */
export interface ThreadClock {
  /**
   * `schedstat`: this thread, exact at every read. `getrusage`: this thread, brought up to date only at scheduler
   * events. `process`: every thread of the process (the thread pool's gzip included); used only when neither
   * per-thread clock is there.
   */
  kind: "schedstat" | "getrusage" | "process";
  /** Why a less exact clock was chosen; undefined for `schedstat`. */
  note?: string;
  nowUs(): number;
}

const SCHEDSTAT = "/proc/thread-self/schedstat";
/** CPU time spent between the two probe reads: long enough to cross any clock's resolution. */
const PROBE_MS = 0.2;

/**
 * The exact per-thread clock when the kernel offers it (and BENCH_THREAD_CLOCK is not `getrusage`), else
 * `process.threadCpuUsage()`, else `process.cpuUsage()`. Call it on the thread to be measured and read it only there:
 * the refresh through `process.cpuUsage()` applies to the calling thread.
 */
export function threadClock(env: NodeJS.ProcessEnv = process.env): ThreadClock {
  const exact = env.BENCH_THREAD_CLOCK === "getrusage" ? { problem: "BENCH_THREAD_CLOCK=getrusage" } : probeSchedstat();
  if ("nowUs" in exact) return { kind: "schedstat", nowUs: exact.nowUs };
  if (typeof process.threadCpuUsage === "function") {
    return {
      kind: "getrusage",
      note: `${exact.problem}; process.threadCpuUsage() instead, brought up to date only at scheduler events`,
      nowUs: () => {
        const usage = process.threadCpuUsage();
        return usage.user + usage.system;
      },
    };
  }
  return {
    kind: "process",
    note:
      `${exact.problem}, and this runtime has no process.threadCpuUsage(); process.cpuUsage() instead: ` +
      "every thread of the process, the thread pool's gzip included",
    nowUs: () => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    },
  };
}

/** The schedstat clock when it works here: readable, and moving between two reads with CPU work between them. */
function probeSchedstat(): { nowUs: () => number } | { problem: string } {
  let nowUs: () => number;
  try {
    nowUs = schedstatReader();
  } catch (error) {
    return { problem: `${SCHEDSTAT} not readable (${String(error).split("\n")[0]?.slice(0, 200)})` };
  }
  const before = nowUs();
  const t0 = performance.now();
  while (performance.now() - t0 < PROBE_MS) {
    // spin: CPU time for the clock to show
  }
  const after = nowUs();
  return after > before ? { nowUs } : { problem: `${SCHEDSTAT} did not advance (${before} then ${after} µs)` };
}

/** A reader of this thread's CPU time from schedstat, in microseconds. */
function schedstatReader(): () => number {
  const fd = openSync(SCHEDSTAT, "r");
  const buf = Buffer.alloc(64);
  return () => {
    process.cpuUsage(); // brings this thread's sum_exec_runtime up to date
    const length = readSync(fd, buf, 0, buf.length, 0);
    // The first field, in nanoseconds, parsed from the bytes: a read allocates no string.
    let ns = 0;
    for (let i = 0; i < length; i++) {
      const digit = (buf[i] ?? 0) - 48;
      if (digit < 0 || digit > 9) break;
      ns = ns * 10 + digit;
    }
    return ns / 1000;
  };
}
