// Whether and where a component spills: the spill options, the runtimes that have a disk to trust, and the file
// operations of `node:fs` there (loaded without an import, so that browser and edge bundles never see it).
import { numberOption, stringOption } from "../config/options.js";
import { getGlobalLogger } from "../log/logger.js";
import { currentRuntime, isServerRuntime, nodeBuiltin } from "../transport/runtime.js";

/** Default bound of a spill directory's size, in bytes (every batch file of every process and kind in it). */
const DEFAULT_SPILL_MAX_BYTES = 512 * 1024 * 1024;
/** Default age, in seconds, past which a spilled batch is dropped instead of sent: one day. */
const DEFAULT_SPILL_MAX_AGE_SECONDS = 24 * 60 * 60;

/** The spill options of the span processor and the client's scores (`spillMaxAge` in seconds), with their variables. */
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

/** Components and runtimes already told that the option does not apply there. */
const toldNoDisk = new Set<string>();

/**
 * The spill settings of a component, or undefined when it does not spill: no directory set, or a runtime without a
 * disk to trust (Cloudflare Workers, edge runtimes, browsers), which is said once.
 */
export function spillSettings(
  owner: string,
  resolved: { spillDir: string | undefined; spillMaxBytes: number; spillMaxAge: number },
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
  return { dir, maxBytes: resolved.spillMaxBytes, maxAgeMs: resolved.spillMaxAge * 1000, fs };
}

/** The file operations a spill directory needs, from `node:fs` (Node, Bun and Deno offer it). */
export interface SpillFs {
  readonly sep: string;
  readonly pid: number;
  /** This machine's name, as claims carry it (dots replaced, so that a name parses). */
  readonly host: string;
  mkdir(path: string, options: { recursive: boolean; mode: number }): Promise<unknown>;
  readdir(path: string): Promise<string[]>;
  open(
    path: string,
    flags: string,
    mode?: number,
  ): Promise<{ write(data: Uint8Array): Promise<unknown>; sync(): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: boolean }): Promise<void>;
  utimes(path: string, atime: Date, mtime: Date): Promise<void>;
  readFile(path: string): Promise<Uint8Array>;
  stat(path: string): Promise<{ mtimeMs: number }>;
  /** Flushes a directory's entries to the disk, where the platform can; never rejects. */
  syncDir(path: string): Promise<void>;
  /** Whether a process of this machine with this id is running. */
  alive(pid: number): boolean;
  /** The first 16 hex digits of the SHA-256 of a text. */
  hash(text: string): string;
}

interface NodeProcess {
  pid: number;
  kill(pid: number, signal: number): boolean;
}

/** The file operations of this runtime's `node:fs`, loaded without an `import`; undefined where it has none. */
export function loadNodeFs(): SpillFs | undefined {
  const proc = (globalThis as { process?: NodeProcess }).process;
  // Its functions (mkdir, open, ...) are the ones SpillFs names.
  const fs = nodeBuiltin<SpillFs>("node:fs/promises");
  const path = nodeBuiltin<{ sep: string }>("node:path");
  const os = nodeBuiltin<{ hostname(): string }>("node:os");
  const crypto = nodeBuiltin<{
    createHash(name: string): { update(text: string): { digest(encoding: string): string } };
  }>("node:crypto");
  if (!fs || !path || !os || !crypto || !proc) return undefined;
  let host = "host";
  try {
    host =
      os
        .hostname()
        .replace(/[^A-Za-z0-9_-]/g, "_")
        .slice(0, 64) || "host";
  } catch {
    // Claims then name a host no other machine has; staleness falls back to the age rule.
  }
  return {
    ...fs,
    sep: path.sep,
    pid: proc.pid,
    host,
    syncDir: async (p) => {
      try {
        const handle = await fs.open(p, "r");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch {
        // Directories cannot be opened for a sync on every platform (Windows): the rename stands as written.
      }
    },
    hash: (text) => crypto.createHash("sha256").update(text).digest("hex").slice(0, 16),
    alive: (pid) => {
      try {
        proc.kill(pid, 0);
        return true;
      } catch (error) {
        // EPERM: it runs, as another user.
        return (error as { code?: string }).code === "EPERM";
      }
    },
  };
}
