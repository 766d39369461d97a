import { globalSlot } from "../log/slot.js";

/**
 * Servers that a flush gave up on because they did not answer: remembered per origin for every queue of the process
 * (spans and scores, every copy of the SDK), so that a later flush or shutdown to the same server only checks whether
 * it now answers instead of waiting its whole deadline again. Any answer (success or an HTTP error status) ends it.
 */
interface ServerState {
  /** When a flush last gave up on the server without an answer; undefined once it answered since. */
  givenUpAt: number | undefined;
  /** When the server last answered a request (epoch ms). */
  answeredAt: number;
}

/** Origins remembered at most; the oldest is forgotten first. */
const MAX_SERVERS = 64;

/**
 * How long a flush or shutdown waits for a server that a flush gave up on to answer a new attempt: past it, it
 * ends as if its deadline had passed; an answer within it gives it its whole deadline.
 */
export const UNANSWERED_RECHECK_MS = 2_000;

const servers = globalSlot(
  { name: "svc.unanswered-servers", version: 1, holds: "list of servers that did not answer a flush" },
  () => new Map<string, ServerState>(),
);

function entry(server: string): ServerState {
  const map = servers();
  let state = map.get(server);
  if (state === undefined) {
    if (map.size >= MAX_SERVERS) map.delete(map.keys().next().value as string);
    state = { givenUpAt: undefined, answeredAt: 0 };
    map.set(server, state);
  }
  return state;
}

/** The origin (`https://host:port`) of a URL, the key servers are remembered by; undefined for an invalid URL. */
export function serverOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The server answered a request (accepted it, or refused it with a status). */
export function noteAnswer(server: string): void {
  const state = entry(server);
  state.answeredAt = Date.now();
  state.givenUpAt = undefined;
}

/** A flush gave up waiting for the server, which had not answered since the flush began. */
export function noteGivenUp(server: string): void {
  entry(server).givenUpAt = Date.now();
}

/** Whether a flush gave up on the server and it has not answered since. */
export function isGivenUp(server: string): boolean {
  return servers().get(server)?.givenUpAt !== undefined;
}

/** Whether the server answered at or after `since` (epoch ms). */
export function answeredSince(server: string, since: number): boolean {
  return (servers().get(server)?.answeredAt ?? 0) >= since;
}

/** How long a flush waited before it gave up, in words: its deadline, or the recheck of a server that did not answer. */
export function gaveUpAfter(flushTimeoutMs: number, rechecked: boolean | undefined): string {
  return rechecked
    ? `${UNANSWERED_RECHECK_MS / 1000} s, as the server did not answer an earlier flush either,`
    : `${flushTimeoutMs / 1000} s`;
}
