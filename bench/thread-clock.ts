// The app thread's CPU time: the kernel's per-thread CPU clock through a small Node-API addon (native/thread-clock.c,
// built here with the system C compiler against the running Node's headers), else process.threadCpuUsage().
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const HERE = import.meta.dirname;
const SOURCE = join(HERE, "native", "thread-clock.c");
const BUILT = join(HERE, "native", "build", "thread-clock.node");

/** Builds the addon when it is missing or older than its source; returns why it could not, or undefined. */
export function buildThreadClock(): string | undefined {
  try {
    if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= statSync(SOURCE).mtimeMs) return undefined;
    mkdirSync(dirname(BUILT), { recursive: true });
    const include = join(dirname(dirname(process.execPath)), "include", "node");
    const args = ["-O2", "-shared", "-fPIC", `-I${include}`, SOURCE, "-o", BUILT];
    execFileSync(process.env.CC ?? "cc", args, { stdio: "pipe", timeout: 60_000 });
    return undefined;
  } catch (error) {
    return String(error).split("\n")[0]?.slice(0, 300);
  }
}

/** A clock of this thread's CPU time, in microseconds. */
export interface ThreadClock {
  /** `clock_gettime`: exact at every read. `getrusage`: brought up to date only at scheduler ticks and switches. */
  kind: "clock_gettime" | "getrusage";
  nowUs(): number;
}

/** The precise clock when the addon is built (and BENCH_THREAD_CLOCK is not `getrusage`), else `process.threadCpuUsage()`. */
export function threadClock(): ThreadClock {
  try {
    if (process.env.BENCH_THREAD_CLOCK === "getrusage") throw new Error("getrusage asked for");
    const addon = createRequire(import.meta.url)(BUILT) as { nowNs(): number };
    addon.nowNs();
    return { kind: "clock_gettime", nowUs: () => addon.nowNs() / 1000 };
  } catch {
    return {
      kind: "getrusage",
      nowUs: () => {
        const usage = process.threadCpuUsage();
        return usage.user + usage.system;
      },
    };
  }
}
