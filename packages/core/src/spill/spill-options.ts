import { numberOption, stringOption } from "../config/options.js";
import { getGlobalLogger } from "../log/logger.js";
import { currentRuntime, isServerRuntime } from "../transport/runtime.js";
import { loadNodeFs, type SpillFs } from "./spill-fs.js";

/** Default bound of a spill directory's size, in bytes (every batch file of every process and kind in it). */
export const DEFAULT_SPILL_MAX_BYTES = 512 * 1024 * 1024;
/** Default age, in seconds, past which a spilled batch is dropped instead of sent: one day. */
export const DEFAULT_SPILL_MAX_AGE_SECONDS = 24 * 60 * 60;

/**
 * How the spill options are read, the same for the span processor and the client's scores: `spillDir` (falls back
 * to SVC_SPILL_DIR; unset, nothing is written to disk), `spillMaxBytes` (SVC_SPILL_MAX_BYTES) and `spillMaxAge`
 * in seconds (SVC_SPILL_MAX_AGE).
 */
export const SPILL_SPECS = {
  spillDir: stringOption(["SVC_SPILL_DIR"]),
  spillMaxBytes: numberOption(DEFAULT_SPILL_MAX_BYTES, {
    min: 0,
    integer: true,
    zeroIsUnset: true,
    env: ["SVC_SPILL_MAX_BYTES"],
  }),
  spillMaxAge: numberOption(DEFAULT_SPILL_MAX_AGE_SECONDS, { min: 0, zeroIsUnset: true, env: ["SVC_SPILL_MAX_AGE"] }),
};

/** A spill directory a component may use, with its bounds and the file operations of this runtime. */
export interface SpillSettings {
  dir: string;
  maxBytes: number;
  maxAgeMs: number;
  fs: SpillFs;
}

/** Runtimes already told that the option does not apply there (one line per component and runtime). */
const toldNoDisk = new Set<string>();

/**
 * The spill settings of a component, or undefined when it does not spill: no directory set, or a runtime without a
 * disk to trust (Cloudflare Workers, edge runtimes, browsers), which is said once.
 */
export function spillSettings(
  owner: string,
  resolved: { spillDir?: string | undefined; spillMaxBytes?: number; spillMaxAge?: number },
): SpillSettings | undefined {
  const dir = resolved.spillDir;
  if (dir === undefined) return undefined;
  const runtime = currentRuntime();
  const server = isServerRuntime(runtime);
  const fs = server ? loadNodeFs() : undefined;
  if (fs === undefined) {
    const key = `${owner} ${runtime.kind}`;
    if (!toldNoDisk.has(key)) {
      toldNoDisk.add(key);
      const why = server
        ? `this version of ${runtime.kind} cannot load node:fs without an import (process.getBuiltinModule is missing; Node.js 22.3 or later, a recent Bun or Deno has it)`
        : "there is no disk to trust here";
      getGlobalLogger().warn(
        `${owner}: spillDir (SVC_SPILL_DIR) does not apply in ${runtime.kind}: ${why}, so nothing is written to it; ` +
          "what does not fit in the queue is dropped and counted as before. Unset it for this runtime.",
      );
    }
    return undefined;
  }
  const maxBytes = resolved.spillMaxBytes ?? DEFAULT_SPILL_MAX_BYTES;
  return { dir, maxBytes, maxAgeMs: (resolved.spillMaxAge ?? DEFAULT_SPILL_MAX_AGE_SECONDS) * 1000, fs };
}
