// A spill directory on disk: one file per batch, named so that a listing alone tells what it holds, written
// atomically (temporary file, fsync, rename, fsync of the directory), and claimed by a rename before it is sent.
import type { SpillFs } from "./spill-settings.js";

/**
 * `{kind}.{tag}.{createdAt}.{count}.{bytes}.{pid}-{random}.batch`: what the items are (`spans`, `scores`), which
 * server and project they belong to (`tag`, a hash of the endpoint and public key, so that a directory shared by
 * two projects never sends one's data with the other's keys), when the batch was made (ms, 13 digits: names sort
 * by age), how many items and bytes it holds. A claimed file takes the suffix `.claimed.{host}.{pid}`; a temporary
 * one starts with `.tmp.`, which no listing reads.
 */
export interface SpillFile {
  name: string;
  kind: string;
  tag: string;
  createdAt: number;
  count: number;
  bytes: number;
  /** Set for a claimed file: who claimed it. */
  claim?: { host: string; pid: number };
}

/** The first line of every spill file, then one line of JSON with the request's content headers, then the body. */
const MAGIC = "svc-spill 1\n";
/** A claim older than this, by an owner that cannot be checked (another host), is taken as abandoned. */
const STALE_CLAIM_MS = 10 * 60_000;
/** A temporary file older than this was left by a process that died while writing: it is removed. */
const STALE_TEMP_MS = 60_000;

/** What a spill file carries besides its body: the content headers it is to be sent with. */
export interface SpillHeader {
  contentType: string;
  contentEncoding?: string;
}

/** A directory listing: batch files (claimed or not) oldest first, their bytes, and the temporary files. */
export interface SpillListing {
  files: SpillFile[];
  bytes: number;
  temps: string[];
}

/** Parses a spill file's name; undefined for any other file. */
function parseSpillName(name: string): SpillFile | undefined {
  const match =
    /^([a-z]+)\.([0-9a-f]+)\.(\d{13})\.(\d+)\.(\d+)\.(\d+-[0-9a-z]+)\.batch(?:\.claimed\.([^.]+)\.(\d+))?$/.exec(name);
  if (!match) return undefined;
  const [, kind = "", tag = "", createdAt, count, bytes, , host, pid] = match;
  const file: SpillFile = { name, kind, tag, createdAt: Number(createdAt), count: Number(count), bytes: Number(bytes) };
  if (host !== undefined) file.claim = { host, pid: Number(pid) };
  return file;
}

/** The directory's operations. Every method rejects on an I/O error; callers turn that into a count and a line. */
export class SpillStore {
  constructor(
    readonly dir: string,
    private readonly fs: SpillFs,
  ) {}

  /** Creates the directory, readable by this user only. */
  async ensure(): Promise<void> {
    await this.fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  /** Every batch file, oldest first, with the directory's total size. */
  async list(): Promise<SpillListing> {
    const names = await this.fs.readdir(this.dir);
    const files: SpillFile[] = [];
    const temps: string[] = [];
    let bytes = 0;
    for (const name of names) {
      const file = parseSpillName(name);
      if (name.startsWith(".tmp.")) temps.push(name);
      else if (file !== undefined) {
        files.push(file);
        bytes += file.bytes;
      }
    }
    files.sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : 1));
    return { files, bytes, temps };
  }

  /**
   * Writes one batch: to a temporary file, flushed to the disk, then renamed to its final name (and the directory
   * flushed), so that a process killed at any point leaves either the whole batch or no batch file at all.
   */
  async write(kind: string, tag: string, count: number, header: SpillHeader, body: Uint8Array): Promise<SpillFile> {
    const head = new TextEncoder().encode(`${MAGIC}${JSON.stringify(header)}\n`);
    const bytes = head.byteLength + body.byteLength;
    const createdAt = Date.now();
    const unique = `${this.fs.pid}-${Math.random().toString(36).slice(2, 10)}`;
    const name = `${kind}.${tag}.${String(createdAt).padStart(13, "0")}.${count}.${bytes}.${unique}.batch`;
    const temp = this.#path(`.tmp.${unique}`);
    const handle = await this.fs.open(temp, "wx", 0o600);
    try {
      await handle.write(head);
      await handle.write(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await this.fs.rename(temp, this.#path(name));
    } catch (error) {
      await this.fs.rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    await this.fs.syncDir(this.dir);
    return parseSpillName(name) as SpillFile;
  }

  /**
   * Claims a file for this process by renaming it; undefined when another process claimed (or removed) it first.
   * A rename is atomic: of several processes that try, one wins.
   */
  async claim(file: SpillFile): Promise<SpillFile | undefined> {
    const claimed = `${unclaimed(file)}.claimed.${this.fs.host}.${this.fs.pid}`;
    try {
      await this.fs.rename(this.#path(file.name), this.#path(claimed));
    } catch (error) {
      if ((error as { code?: string } | undefined)?.code === "ENOENT") return undefined;
      throw error;
    }
    // The claim's age is counted from now, for the staleness rule of other hosts.
    const now = new Date();
    await this.fs.utimes(this.#path(claimed), now, now).catch(() => undefined);
    return parseSpillName(claimed);
  }

  /** Gives a claimed file back, for a later attempt (by this process or another). */
  async release(file: SpillFile): Promise<void> {
    if (file.claim) await this.fs.rename(this.#path(file.name), this.#path(unclaimed(file)));
  }

  /**
   * Whether a claimed file's owner is gone: a dead process of this host, or a claim older than the stale age (a send
   * takes seconds; an old claim of a live process id is one whose id was reused, or of another host).
   */
  async isStale(file: SpillFile, now = Date.now()): Promise<boolean> {
    const claim = file.claim;
    if (!claim) return false;
    const mine = claim.host === this.fs.host;
    if (mine && claim.pid !== this.fs.pid && !this.fs.alive(claim.pid)) return true;
    try {
      return now - (await this.fs.stat(this.#path(file.name))).mtimeMs > STALE_CLAIM_MS;
    } catch {
      return false;
    }
  }

  /** Removes temporary files left by processes killed while writing (older than a minute). */
  async removeStaleTemps(temps: readonly string[], now = Date.now()): Promise<void> {
    for (const temp of temps) {
      const path = this.#path(temp);
      try {
        if (now - (await this.fs.stat(path)).mtimeMs > STALE_TEMP_MS) await this.fs.rm(path, { force: true });
      } catch {
        // Gone already, or not ours to remove: left alone.
      }
    }
  }

  /** Reads a claimed file: its header and body; undefined when it is not a whole spill file. */
  async read(file: SpillFile): Promise<{ header: SpillHeader; body: Uint8Array } | undefined> {
    const data = await this.fs.readFile(this.#path(file.name));
    if (data.byteLength !== file.bytes) return undefined;
    const magic = new TextEncoder().encode(MAGIC);
    for (let i = 0; i < magic.length; i++) if (data[i] !== magic[i]) return undefined;
    const end = data.indexOf(10, magic.length);
    if (end < 0) return undefined;
    try {
      const header = JSON.parse(new TextDecoder().decode(data.subarray(magic.length, end))) as SpillHeader;
      if (typeof header.contentType !== "string") return undefined;
      return { header, body: data.subarray(end + 1) };
    } catch {
      return undefined;
    }
  }

  async remove(file: SpillFile): Promise<void> {
    await this.fs.rm(this.#path(file.name), { force: true });
  }

  #path(name: string): string {
    return `${this.dir}${this.fs.sep}${name}`;
  }
}

/** A batch file's name without its claim: the same batch whoever holds it. */
export const unclaimed = ({ name, claim }: SpillFile): string =>
  claim ? name.slice(0, name.indexOf(".claimed.")) : name;
