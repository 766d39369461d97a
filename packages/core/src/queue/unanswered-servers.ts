import { shared } from "../registry.js";

/**
 * Servers that a flush gave up on because they did not answer, and the windows in which they have to answer: kept
 * per origin for every queue of the process (spans and scores, every copy of the SDK). A flush to a server a flush
 * gave up on, and every shutdown whose queue has no answer of the server yet, waits one request's timeout for an
 * answer; only an answer (success or an HTTP error status) gives it the time until its deadline. The calls that
 * overlap share one window, and once a window has passed without an answer the calls that follow end at once, so a
 * server that stays silent costs the first deadline and one request's timeout, however many calls follow.
 */
interface ServerState {
  /** When a flush last gave up on the server without an answer; undefined once it answered since. */
  givenUpAt: number | undefined;
  /** When the server last answered a request (epoch ms). */
  answeredAt: number;
  /** The last window in which the server had to answer (absent in the state of an earlier copy of the SDK). */
  window?: AnswerWindow | undefined;
}

/** From when a server has to answer a request, and until when; epoch ms. */
export interface AnswerWindow {
  from: number;
  until: number;
}

/** Origins remembered at most; the oldest is forgotten first. */
const MAX_SERVERS = 64;

/**
 * How long a window that passed without an answer holds: the calls that start within this time after it ended give
 * up at once; a later call waits a new window.
 */
const MISSED_WINDOW_HOLDS_MS = 30_000;

const servers = shared("unanswered-servers", () => new Map<string, ServerState>());

function entry(server: string): ServerState {
  const map = servers();
  let state = map.get(server);
  if (state === undefined) {
    if (map.size >= MAX_SERVERS) map.delete(map.keys().next().value as string);
    state = { givenUpAt: undefined, answeredAt: 0, window: undefined };
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

/**
 * The window in which the server has to answer a call that starts now: the one under way, if any; the last one, if
 * it passed without an answer a short while ago (the call then ends at once); else a new one of `lengthMs` (one
 * request's timeout) from now.
 */
export function answerWindow(server: string, lengthMs: number): AnswerWindow {
  const state = entry(server);
  const now = Date.now();
  const last = state.window;
  if (last !== undefined) {
    if (now < last.until) return last;
    const missed = state.answeredAt < last.from;
    if (missed && now - last.until < MISSED_WINDOW_HOLDS_MS) return last;
  }
  state.window = { from: now, until: now + lengthMs };
  return state.window;
}

/** `1.5 s`: milliseconds as seconds, to a tenth. */
export function inSeconds(ms: number): string {
  return `${Math.round(Math.max(0, ms) / 100) / 10} s`;
}

/** What ended a shutdown's wait, for the line that counts what it dropped. */
export function whatEnded({ unanswered }: { unanswered?: { windowMs: number } | undefined }): string {
  return unanswered
    ? `the server answered no request within one request's timeout (${inSeconds(unanswered.windowMs)}), so shutdown() stopped waiting before its deadline`
    : "the shutdown deadline passed before they could be delivered";
}

/**
 * How long a flush waited before it gave up, in words: its deadline, or, when the server answered no request in
 * the window of one request's timeout, that time.
 */
export function gaveUpAfter(
  flushTimeoutMs: number,
  unanswered: { waitedMs: number; windowMs: number } | undefined,
): string {
  return unanswered
    ? `${inSeconds(unanswered.waitedMs)}, as the server answered no request within one request's timeout (${inSeconds(unanswered.windowMs)}) after an earlier flush gave up on it,`
    : `${flushTimeoutMs / 1000} s`;
}
