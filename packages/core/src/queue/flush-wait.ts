// How long a flush waits: until the items queued before it have settled, or its deadline; for a server a flush gave
// up on (and a shutdown whose queue has had no answer yet), until one request's timeout unless the server answers
// (the recheck); and what it does with a send that never settles (a lost send).
import { shared } from "../registry.js";
import { urlOf } from "../transport/http.js";

/** A flush waiting for the items queued before it (up to `target`); `checkEarly` while it has an early end. */
interface Waiter {
  target: number;
  remaining: number;
  resolve: () => void;
  checkEarly?: () => void;
}

/** The flushes waiting on a queue; each learns how many of its items were still pending when it ended. */
export class FlushWaiters {
  readonly #waiters = new Set<Waiter>();

  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Waits until the `remaining` items with a sequence number up to `target` are settled, or until `deadline`
   * (epoch ms); resolves with how many were still pending. With `early`, the wait ends at `early.at` already unless
   * `early.extend()` then says to go on (`true`: until `deadline`; a time: to ask again then).
   */
  async wait(
    target: number,
    remaining: number,
    deadline: number,
    early?: { at: number; extend: () => boolean | number },
  ): Promise<number> {
    if (remaining <= 0) return 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Held (not unref'd): a caller awaiting a flush keeps the process alive until it resolves, at the latest.
    const until = (at: number, then: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(then, Math.max(0, at - Date.now()));
    };
    const waiter: Waiter = { target, remaining, resolve: () => {} };
    try {
      await new Promise<void>((resolve) => {
        waiter.resolve = resolve;
        this.#waiters.add(waiter);
        if (early && early.at < deadline) {
          const check = (): void => {
            const next = early.extend();
            if (next === false) resolve();
            else if (next === true || next >= deadline) until(deadline, resolve);
            else until(next, check);
          };
          waiter.checkEarly = check;
          until(early.at, check);
        } else until(deadline, resolve);
      });
    } finally {
      clearTimeout(timer);
      this.#waiters.delete(waiter);
    }
    return Math.max(0, waiter.remaining);
  }

  /** No attempt can be answered before the early ends: the waits that have one check now. */
  endEarly(): void {
    for (const waiter of this.#waiters) waiter.checkEarly?.();
  }

  /** These items (by sequence number) were delivered or dropped. */
  settle(items: readonly { readonly seq: number }[]): void {
    if (this.#waiters.size === 0 || items.length === 0) return;
    for (const waiter of this.#waiters) {
      for (const { seq } of items) if (seq <= waiter.target) waiter.remaining--;
      if (waiter.remaining <= 0) waiter.resolve();
    }
  }
}

/**
 * A server as every queue of the process sees it (spans and scores, every copy of the SDK): when a flush gave up on
 * it (undefined once it answered since), when it last answered, and the last window it had to answer in (absent in
 * the state of an earlier copy). The calls that overlap share one window, and once a window has passed without an
 * answer the calls that follow end at once: a silent server costs the first deadline and one request's timeout.
 */
interface ServerState {
  givenUpAt: number | undefined;
  answeredAt: number;
  window?: AnswerWindow | undefined;
}

/** From when a server has to answer a request, and until when; epoch ms. */
export interface AnswerWindow {
  from: number;
  until: number;
}

const MAX_SERVERS = 64;
/** How long a window missed without an answer holds: the calls that start within it give up at once. */
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

/** The origin (`https://host:port`) of a URL, the key servers are remembered by; undefined when invalid. */
export function serverOf(url: string): string | undefined {
  return urlOf(url)?.origin;
}

export function noteAnswer(server: string): void {
  const state = entry(server);
  state.answeredAt = Date.now();
  state.givenUpAt = undefined;
}

export function noteGivenUp(server: string): void {
  entry(server).givenUpAt = Date.now();
}

export function isGivenUp(server: string): boolean {
  return servers().get(server)?.givenUpAt !== undefined;
}

export function answeredSince(server: string, since: number): boolean {
  return (servers().get(server)?.answeredAt ?? 0) >= since;
}

/**
 * The window in which the server has to answer a call that starts now: the one under way; the last one, if it
 * passed without an answer a short while ago (the call then ends at once); else a new one of `lengthMs` from now.
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

/**
 * How long shutdown, past its deadline, still waits for the sends under way before it aborts them: an answer within it
 * counts (a batch the server accepted is counted sent); a send that ignores its abort (user code) is left behind.
 */
export const SENDS_GRACE_MS = 250;

/**
 * Time a send is given beyond the step it is in (its request's timeout, a mask's) before it is taken as lost: a
 * runtime that ends the request that started it (Cloudflare Workers) leaves it unsettled, with no timer to end it.
 */
export const LOST_SEND_GRACE_MS = 5_000;

/**
 * A send of a batch under way: its request may be answered until `answerBy` (0 once settled), and it may settle by
 * itself until `liveUntil`; past that it is `lost`, aborted, and its late outcome ignored.
 */
export interface Send<B> {
  batch: B;
  controller: AbortController;
  answerBy: number;
  liveUntil: number;
  lost: boolean;
  /** A step begins that may take `stepMs` (a request with its timeout): the send is not lost before it ends. */
  live(stepMs: number): void;
}

/** A send of `batch` starts now, in a first step of `stepMs` (never lost when undefined). */
export function startSend<B>(batch: B, stepMs = Number.POSITIVE_INFINITY): Send<B> {
  const send: Send<B> = {
    batch,
    controller: new AbortController(),
    answerBy: Number.NEGATIVE_INFINITY,
    liveUntil: 0,
    lost: false,
    live(stepMs) {
      send.answerBy = Math.max(send.answerBy, Date.now() + stepMs);
      send.liveUntil = send.answerBy + LOST_SEND_GRACE_MS;
    },
  };
  send.live(stepMs);
  return send;
}

/**
 * Watches the sends under way while a flush waits (until `deadline`): calls `reclaim` as soon as one has outlived
 * its `liveUntil`, and again for each that follows, those that start during the watch included (none is lost before
 * its first step and the grace). Returns the function that stops the watch.
 */
export function watchLostSends(
  sends: { values(): Iterable<Send<unknown>> },
  deadline: number,
  reclaim: () => void,
  firstStepMs = Number.POSITIVE_INFINITY,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = (): void => {
    let earliest = Date.now() + firstStepMs + LOST_SEND_GRACE_MS;
    for (const send of sends.values()) earliest = Math.min(earliest, send.liveUntil);
    if (earliest >= deadline) return;
    timer = setTimeout(
      () => {
        reclaim();
        check();
      },
      Math.max(0, earliest - Date.now()),
    );
  };
  check();
  return () => clearTimeout(timer);
}

/** When the last request of these sends may still be answered; 0 for none. */
export function lastRequestEnd(sends: Iterable<Send<unknown>>): number {
  let end = 0;
  for (const send of sends) end = Math.max(end, send.answerBy);
  return end;
}

/** Takes out of `sends` those past their `liveUntil` (all of them with `all`), marked lost and aborted. */
export function takeLost<K, S extends Send<unknown>>(sends: Map<K, S>, all = false): S[] {
  const now = Date.now();
  const taken: S[] = [];
  for (const [key, send] of sends) {
    if (!all && now < send.liveUntil) continue;
    send.lost = true;
    send.controller.abort();
    sends.delete(key);
    taken.push(send);
  }
  return taken;
}
