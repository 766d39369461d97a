/** The file operations a spill directory needs, from `node:fs` (Node, Bun and Deno offer it). */
export interface SpillFs {
  readonly sep: string;
  readonly pid: number;
  /** This machine's name, as claims carry it (dots replaced, so that a name parses). */
  readonly host: string;
  mkdir(path: string, options: { recursive: boolean; mode: number }): Promise<unknown>;
  readdir(path: string): Promise<string[]>;
  open(path: string, flags: string, mode: number): Promise<FileHandleLike>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: boolean }): Promise<void>;
  utimes(path: string, atime: Date, mtime: Date): Promise<void>;
  readFile(path: string): Promise<Uint8Array>;
  mtimeMs(path: string): Promise<number>;
  /** Flushes a directory's entries to the disk, where the platform can; never rejects. */
  syncDir(path: string): Promise<void>;
  /** Whether a process of this machine with this id is running. */
  alive(pid: number): boolean;
  /** The first 16 hex digits of the SHA-256 of a text. */
  hash(text: string): string;
}

/** The part of a `FileHandle` a spill write uses. */
export interface FileHandleLike {
  write(data: Uint8Array): Promise<unknown>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

interface NodeFsPromises {
  mkdir: SpillFs["mkdir"];
  readdir(path: string): Promise<string[]>;
  open(path: string, flags: string, mode?: number): Promise<FileHandleLike>;
  rename: SpillFs["rename"];
  rm: SpillFs["rm"];
  utimes: SpillFs["utimes"];
  readFile(path: string): Promise<Uint8Array>;
  stat(path: string): Promise<{ mtimeMs: number }>;
}

interface NodeProcess {
  pid: number;
  kill(pid: number, signal: number): boolean;
  getBuiltinModule?: (name: string) => unknown;
}

/**
 * `node:fs/promises` of this runtime, loaded without an `import` (so that bundles for browsers and edge runtimes
 * never see it); undefined where the runtime has none.
 */
export function loadNodeFs(): SpillFs | undefined {
  const proc = (globalThis as { process?: NodeProcess }).process;
  const load = proc?.getBuiltinModule;
  if (typeof load !== "function") return undefined;
  const fs = load.call(proc, "node:fs/promises") as NodeFsPromises | undefined;
  const path = load.call(proc, "node:path") as { sep: string } | undefined;
  const os = load.call(proc, "node:os") as { hostname(): string } | undefined;
  const crypto = load.call(proc, "node:crypto") as
    | { createHash(name: string): { update(text: string): { digest(encoding: string): string } } }
    | undefined;
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
    sep: path.sep,
    pid: proc.pid,
    host,
    mkdir: (p, o) => fs.mkdir(p, o),
    readdir: (p) => fs.readdir(p),
    open: (p, flags, mode) => fs.open(p, flags, mode),
    rename: (a, b) => fs.rename(a, b),
    rm: (p, o) => fs.rm(p, o),
    utimes: (p, a, m) => fs.utimes(p, a, m),
    readFile: (p) => fs.readFile(p),
    mtimeMs: async (p) => (await fs.stat(p)).mtimeMs,
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

/** `node:fs` of this runtime; throws where there is none (callers check {@link loadNodeFs} first). */
export function nodeFs(): SpillFs {
  const fs = loadNodeFs();
  if (fs === undefined) throw new Error("node:fs is not available in this runtime");
  return fs;
}
