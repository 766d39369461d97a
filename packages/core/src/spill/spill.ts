// A spill directory as one queue uses it: the batches the queue cannot hold are written to it, encoded and masked as
// they would be sent, and sent again oldest first, one at a time at a bounded rate, once the server answers (by this
// process or the next one that starts with the directory).

import { Limiter } from "../lifecycle/limiter.js";
import { settleWithin } from "../lifecycle/settle-within.js";
import { counted, describeError } from "../log/describe.js";
import { getGlobalLogger } from "../log/logger.js";
import { RepeatLog } from "../log/repeat-log.js";
import { Backoff } from "../queue/backoff.js";
import type { DeliveryHealth, DropReason, SendOutcome } from "../queue/health.js";
import type { SpillSettings } from "./spill-settings.js";
import { type SpillFile, type SpillHeader, type SpillListing, SpillStore, unclaimed } from "./spill-store.js";

/** Pause between two spilled batches sent again: at most ten requests a second, one at a time, beside live ones. */
const REPLAY_INTERVAL_MS = 100;
/** Batches encoded and written at once: a shutdown that writes a whole queue holds two encoded bodies at most. */
const WRITE_CONCURRENCY = 2;
/** How long a shutdown waits for a spilled batch being sent again before it lets it go (it is sent next time). */
const REPLAY_STOP_GRACE_MS = 1_000;

/** What a component gives its spill: how a batch is written (after masking) and how a written one is sent. */
export interface SpillOwner<T> {
  /** The server and project the batches are for (endpoint and public key): files of others are left alone. */
  identity: string;
  /** The body the batch would be sent with, masked and encoded, with its content headers. */
  encode(items: T[]): Promise<{ body: Uint8Array; header: SpillHeader }>;
  /** Sends a body read back from the disk; `count` items are in it. Never rejects. */
  send(body: Uint8Array, header: SpillHeader, count: number, signal: AbortSignal): Promise<SendOutcome<number>>;
}

/** What the queue a spill works for tells it, and is told. */
export interface SpillReport {
  /** The queue's owner, which names it in log lines (`SvcSpanProcessor`). */
  readonly owner: string;
  /** What the queue's items are called (`spans`, `scores`); also the first part of the file names. */
  readonly items: string;
  /** The queue's counts, where the spill adds what it wrote (`spilled`) and sent again (`replayed`). */
  readonly counts: Pick<DeliveryHealth, "spilled" | "replayed">;
  /** Items given up on (a bound of the directory, a write that failed), counted and logged as any drop. */
  drop(reason: DropReason, count: number, detail: string): void;
  /** What became of a spilled batch sent again, recorded as a live batch's outcome (no items to requeue). */
  record(outcome: SendOutcome<never>): void;
  /** Whether the live queue is waiting out a failure (its own probe then finds out when the server is back). */
  failing(): boolean;
}

/** A batch this process wrote (`file`) or removed (undefined), numbered in the order it happened. */
type Change = { seq: number; file: SpillFile | undefined };

/**
 * A file is claimed (renamed) before it is sent, so processes sharing a directory never send the same batch twice;
 * it is deleted once the server accepted it or refused it for good. Never throws and never rejects: every failure is
 * a count and a line.
 */
export class Spill<T> {
  readonly #store: SpillStore;
  readonly #settings: SpillSettings;
  readonly #owner: SpillOwner<T>;
  #report!: SpillReport;
  readonly #tag: string;
  readonly #lines = new RepeatLog();
  readonly #backoff = new Backoff();
  readonly #writing = new Limiter(WRITE_CONCURRENCY);
  #ready: Promise<void> | undefined;
  /** This kind's batches on disk (any process's) by unclaimed name: the last listing, and this process's changes since. */
  #disk = new Map<string, SpillFile>();
  /** This process's writes and removals that a listing may not show yet (one that began before they ended). */
  readonly #changes = new Map<string, Change>();
  #seq = 0;
  /** Items and bytes being written: held in memory until written, within the queue's own bounds again. */
  readonly #held = { items: 0, bytes: 0 };
  readonly #writes = new Set<Promise<void>>();
  #replaying: Promise<void> | undefined;
  #sending: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(settings: SpillSettings, owner: SpillOwner<T>) {
    this.#settings = settings;
    this.#owner = owner;
    this.#store = new SpillStore(settings.dir, settings.fs);
    this.#tag = settings.fs.hash(owner.identity);
  }

  attach(report: SpillReport): void {
    this.#report = report;
    this.#kick();
  }

  get onDisk(): number {
    let count = 0;
    for (const file of this.#disk.values()) count += file.count;
    return count;
  }

  /** Writes a batch (`why`: the queue is full, or a shutdown ends); resolves once it is on disk or counted dropped. */
  write(items: T[], why: DropReason, detail?: string, bytes = 0): Promise<void> {
    const held = this.#held;
    held.items += items.length;
    held.bytes += bytes;
    const writing = this.#writing.run(() => this.#write(items, why, detail));
    this.#writes.add(writing);
    return writing.finally(() => {
      held.items -= items.length;
      held.bytes -= bytes;
      this.#writes.delete(writing);
    });
  }

  hasRoom(maxItems: number, maxBytes: number): boolean {
    return this.#held.items < maxItems && this.#held.bytes < maxBytes;
  }

  serverAnswered(): void {
    if (this.#disk.size === 0 && this.#replaying === undefined && this.#timer === undefined) return;
    this.#backoff.probeNow();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#kick();
  }

  /** Stops sending again (a batch being sent is given back for the next process), and says what is left on disk. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#sending?.abort();
    await Promise.allSettled([...this.#writes]);
    await settleWithin(() => this.#replaying ?? Promise.resolve(), { timeoutMs: REPLAY_STOP_GRACE_MS });
    try {
      this.#note(await this.#list());
    } catch {
      // The last count stands.
    }
    this.#lines.report();
    const count = this.onDisk;
    if (count === 0) return;
    const files = [...this.#disk.values()];
    const mib = Math.round(files.reduce((sum, file) => sum + file.bytes, 0) / 104_857.6) / 10;
    const oldest = new Date(Math.min(...files.map((file) => file.createdAt))).toISOString();
    getGlobalLogger().warn(
      `${this.#report.owner}: ${counted(count, this.#report.items)} left on disk in ${this.#settings.dir} (${mib} MiB, the oldest from ${oldest}); ` +
        "the next start with this spill directory sends them.",
    );
  }

  async #write(items: T[], reason: DropReason, detail: string | undefined): Promise<void> {
    const { owner, items: kind } = this.#report;
    const { dir, maxBytes } = this.#settings;
    try {
      this.#ready ??= this.#store.ensure();
      await this.#ready;
      const { body, header } = await this.#owner.encode(items);
      const listing = await this.#list();
      await this.#sweepExpired(listing);
      this.#note(listing);
      if (listing.bytes + body.byteLength > maxBytes) {
        const held = `${Math.round(listing.bytes / 1024 / 1024)} MiB`;
        this.#report.drop(
          "spillFull",
          items.length,
          `the spill directory ${dir} holds ${held}, its bound (spillMaxBytes) is ${Math.round(maxBytes / 1024 / 1024)} MiB; ` +
            "raise spillMaxBytes, or check that the server is reachable",
        );
        return;
      }
      const file = await this.#store.write(kind, this.#tag, items.length, header, body);
      this.#report.counts.spilled += items.length;
      this.#changed(file, file);
      const cause = reason === "shutdown" ? "still undelivered at shutdown" : "the queue is full";
      const kindOfLine = `${owner}: ${kind} written to the spill directory (${cause})`;
      this.#lines.warn(
        kindOfLine,
        `${kindOfLine}: ${counted(items.length, kind)} in ${dir}${detail ? ` (${detail})` : ""}; they are sent from ` +
          "there, oldest first, once the server answers",
        { count: items.length, unit: kind },
      );
    } catch (error) {
      const ended = detail ? `${detail}, and they ` : "";
      const why = `${ended}could not be written to the spill directory ${dir}: ${describeError(error)}`;
      this.#report.drop(reason, items.length, why);
    }
  }

  #kick(): void {
    if (this.#closed || this.#replaying !== undefined) return;
    this.#replaying = this.#replay()
      .catch((error: unknown) => {
        const kind = `${this.#report.owner}: cannot read the spill directory`;
        this.#lines.warn(kind, `${kind} ${this.#settings.dir}: ${describeError(error)}; its batches stay there`);
      })
      .finally(() => {
        this.#replaying = undefined;
      });
  }

  /** Sends spilled batches one at a time, oldest first, until none is left, the server fails, or the spill closes. */
  async #replay(): Promise<void> {
    while (!this.#closed) {
      const waitMs = this.#backoff.remainingMs();
      if (waitMs > 0) return this.#retryIn(waitMs);
      if (this.#report.failing()) return;
      const file = await this.#claimNext();
      if (file === undefined) return;
      if (await this.#replayOne(file)) return this.#retryIn(this.#backoff.remainingMs());
      await this.#pause(REPLAY_INTERVAL_MS);
    }
  }

  /** Claims the oldest unclaimed (or abandoned) batch of this kind, server and project; drops those past the age bound. */
  async #claimNext(): Promise<SpillFile | undefined> {
    const listing = await this.#list();
    await this.#store.removeStaleTemps(listing.temps);
    await this.#sweepExpired(listing);
    this.#note(listing);
    for (const file of listing.files) {
      if (this.#closed) return undefined;
      if (!this.#mine(file) || (file.claim && !(await this.#store.isStale(file)))) continue;
      const claimed = await this.#store.claim(file);
      if (claimed !== undefined) return claimed;
    }
    return undefined;
  }

  /** Removes (claims, then deletes) this kind's batches past the age bound, counted as dropped. */
  async #sweepExpired(listing: SpillListing): Promise<void> {
    const tooOld = Date.now() - this.#settings.maxAgeMs;
    for (const file of listing.files) {
      if (!this.#mine(file) || file.claim || file.createdAt >= tooOld) continue;
      const claimed = await this.#store.claim(file);
      if (claimed === undefined) continue;
      await this.#store.remove(claimed);
      this.#changed(claimed, undefined);
      this.#report.drop(
        "spillExpired",
        claimed.count,
        `a spilled batch from ${new Date(claimed.createdAt).toISOString()} in ${this.#settings.dir} is older than spillMaxAge ` +
          `(${Math.round(this.#settings.maxAgeMs / 1000)} s) and was removed unsent; raise spillMaxAge to keep batches longer`,
      );
    }
  }

  /** Sends one claimed batch again; true when it is to be retried later. */
  async #replayOne(file: SpillFile): Promise<boolean> {
    const data = await this.#store.read(file);
    if (data === undefined) {
      await this.#store.remove(file);
      this.#changed(file, undefined);
      this.#report.drop("failed", file.count, `a spilled batch in ${this.#settings.dir} was not whole and was removed`);
      return false;
    }
    const controller = new AbortController();
    this.#sending = controller;
    let outcome: SendOutcome<number>;
    try {
      outcome = await this.#owner.send(data.body, data.header, file.count, controller.signal);
    } finally {
      this.#sending = undefined;
    }
    if (outcome.retry) {
      await this.#store.release(file);
      this.#backoff.failed(outcome.retry.retryAfterMs);
      if (!this.#closed) this.#report.record({ delivered: 0, retry: { ...outcome.retry, items: [] } });
      return true;
    }
    // Deleted before it is counted: a crash in between leaves at most a count short, never a batch sent twice.
    await this.#store.remove(file);
    this.#changed(file, undefined);
    this.#report.counts.replayed += outcome.delivered;
    if (outcome.delivered > 0) this.#backoff.succeeded();
    this.#report.record({ ...outcome, retry: undefined });
    return false;
  }

  #retryIn(ms: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#kick();
    }, ms);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      (timer as { unref?: () => void }).unref?.();
    });
  }

  #mine(file: SpillFile): boolean {
    return file.kind === this.#report.items && file.tag === this.#tag;
  }

  /** Lists the directory, numbered so that `#note` knows which of this process's changes it may not show. */
  async #list(): Promise<SpillListing & { seq: number }> {
    const seq = this.#seq;
    return { ...(await this.#store.list()), seq };
  }

  /** Takes a listing as what is on disk, with this process's changes that ended after it began applied again. */
  #note(listing: SpillListing & { seq: number }): void {
    const disk = new Map<string, SpillFile>();
    for (const file of listing.files) if (this.#mine(file)) disk.set(unclaimed(file), file);
    for (const [name, change] of this.#changes) {
      if (change.seq <= listing.seq) this.#changes.delete(name);
      else if (change.file === undefined) disk.delete(name);
      else disk.set(name, change.file);
    }
    this.#disk = disk;
  }

  /** Records a batch this process wrote (`now` the file) or removed (`now` undefined). */
  #changed(file: SpillFile, now: SpillFile | undefined): void {
    const name = unclaimed(file);
    this.#changes.set(name, { seq: ++this.#seq, file: now });
    if (now === undefined) this.#disk.delete(name);
    else this.#disk.set(name, now);
  }
}
