// What the process does with the SDK's queues as it ends: a flush when the event loop empties, one line at exit.
import { counted } from "../log/describe.js";
import { getGlobalLogger } from "../log/logger.js";
import { shared } from "../registry.js";

/** A component that holds data for the server (the span processor, the score manager), as the exit hooks see it. */
export interface ExitParticipant {
  /** What its items are called in log lines, plural (`spans`, `scores`). */
  readonly items: string;
  /** Items neither delivered nor dropped yet. */
  pending(): number;
  /** Items of its kind waiting in its spill directory, for the next start to send (0 without one). */
  onDisk?(): number;
  /** Items accepted since it was created; grows only. A flush on exit is tried again only when it has grown. */
  accepted(): number;
  /** Whether to flush when the event loop empties. */
  readonly flushOnExit: boolean;
  /** Sends what is pending, within the component's flush deadline; never rejects. */
  flush(): Promise<void>;
}

// One set for every copy of the SDK in the process, so that one listener of each kind serves them all;
// `flushedAt` is each participant's `accepted()` at its last flush on exit.
const state = shared("exit", () => ({
  participants: new Set<WeakRef<ExitParticipant>>(),
  flushedAt: new WeakMap<ExitParticipant, number>(),
  installed: false,
}));

/** What a component keeps while it is watched: the watcher holds the participant only weakly. */
export interface ExitWatch {
  readonly participant: ExitParticipant;
  /** Stops watching (call it at shutdown). */
  unwatch(): void;
}

/**
 * Watches a component's queue (weakly) until `unwatch()`. When the event loop empties with items pending, flushes it
 * if `flushOnExit`, again only once it accepted more (a server that stays down cannot keep the process alive); when
 * the process exits with items pending, one line counts what was not delivered. Does nothing without `process`.
 */
export function watchQueueForExit(
  queue: { readonly items: string; readonly size: number; readonly accepted: number; health(): { onDisk: number } },
  flushOnExit: boolean,
  flush: () => Promise<void>,
): ExitWatch {
  const participant: ExitParticipant = {
    items: queue.items,
    flushOnExit,
    pending: () => queue.size,
    onDisk: () => queue.health().onDisk,
    accepted: () => queue.accepted,
    flush,
  };
  const proc = (globalThis as { process?: { on?(event: string, listener: () => void): unknown } }).process;
  if (typeof proc?.on !== "function") return { participant, unwatch: () => {} };
  const s = state();
  const ref = new WeakRef(participant);
  s.participants.add(ref);
  if (!s.installed) {
    s.installed = true;
    proc.on("beforeExit", onBeforeExit);
    proc.on("exit", onExit);
  }
  return { participant, unwatch: () => s.participants.delete(ref) };
}

/** Flushes every watched component of the process (every copy of the SDK), each within its deadline. Never rejects. */
export async function flushWatched(): Promise<void> {
  await Promise.allSettled(liveRefs(state().participants).map(async (participant) => participant.flush()));
}

function onBeforeExit(): void {
  const { flushedAt } = state();
  for (const participant of liveRefs(state().participants)) {
    try {
      if (!participant.flushOnExit || participant.pending() === 0) continue;
      const accepted = participant.accepted();
      if (flushedAt.get(participant) === accepted) continue;
      flushedAt.set(participant, accepted);
      void participant.flush().catch(() => undefined);
    } catch {
      // A participant that cannot answer is left alone; the exit line below still counts the others.
    }
  }
}

function onExit(): void {
  const pending = new Map<string, number>();
  const onDisk = new Map<string, number>();
  const add = (into: Map<string, number>, items: string, count: number) => {
    if (count > 0) into.set(items, (into.get(items) ?? 0) + count);
  };
  for (const participant of liveRefs(state().participants)) {
    try {
      add(pending, participant.items, participant.pending());
      add(onDisk, participant.items, participant.onDisk?.() ?? 0);
    } catch {
      // Counted as nothing.
    }
  }
  const list = (counts: Map<string, number>) =>
    [...counts].map(([items, count]) => counted(count, items)).join(" and ");
  const disk =
    onDisk.size === 0 ? "" : ` ${list(onDisk)} are left in the spill directory; the next start with it sends them.`;
  if (pending.size === 0) {
    if (disk) getGlobalLogger().warn(`the process is exiting:${disk}`);
    return;
  }
  getGlobalLogger().error(
    `the process is exiting with ${list(pending)} not delivered; await shutdown() of the span processor (or of the ` +
      `tracer provider) and of SvcClient before the process ends.${disk}`,
  );
}

/** The objects of a set of weak references that are still alive, in order; the references of the others leave it. */
export function liveRefs<T extends object>(refs: Set<WeakRef<T>>): T[] {
  const out: T[] = [];
  for (const ref of refs) {
    const value = ref.deref();
    if (value === undefined) refs.delete(ref);
    else out.push(value);
  }
  return out;
}
