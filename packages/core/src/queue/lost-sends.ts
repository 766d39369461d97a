/**
 * Time a send is given beyond the step it is in (its request's timeout, a mask's) before it is taken as lost: a
 * runtime that ends the request that started it (Cloudflare Workers) leaves it unsettled, with no timer to end it.
 */
export const LOST_SEND_GRACE_MS = 5_000;

/** A send under way, as the lost-send watch sees it. */
export interface WatchedSend {
  /** Until when it may still settle by itself (epoch ms): the end of its step, plus the grace. */
  liveUntil: number;
  /** Until when its request may be answered (epoch ms): the end of its step; 0 once it has settled. */
  answerBy: number;
}

/**
 * Watches the sends under way while a flush waits (until `deadline`): calls `reclaim` as soon as one has outlived
 * its own deadline (`liveUntil`), and again for each that follows, those that start during the watch included (none
 * is lost before `lostAfterMs` from its start). Returns the function that stops the watch.
 */
export function watchLostSends(
  sends: { values(): Iterable<WatchedSend> },
  deadline: number,
  reclaim: () => void,
  lostAfterMs = Number.POSITIVE_INFINITY,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = (): void => {
    let earliest = Date.now() + lostAfterMs;
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

/** When the last request of these sends may still be answered (its start and timeout), epoch ms; 0 for none. */
export function lastRequestEnd(sends: Iterable<WatchedSend>): number {
  let end = 0;
  for (const send of sends) end = Math.max(end, send.answerBy);
  return end;
}

/** A send under way that can be taken as lost: aborted, and its late outcome ignored. */
export interface LosableSend extends WatchedSend {
  controller: AbortController;
  lost: boolean;
}

/** A send of a batch under way, with the controller of its own signal. */
export interface SendUnderWay<B> extends LosableSend {
  batch: B;
  /** A step of the send begins that may take `stepMs`: it is not taken as lost before that and the grace have passed. */
  live(stepMs: number): void;
}

/**
 * A send of `batch` starts now: taken as lost once it has taken `lostAfterMs` (never when undefined), unless a step it
 * announces with `live` ends later.
 */
export function startSend<B>(batch: B, lostAfterMs = Number.POSITIVE_INFINITY): SendUnderWay<B> {
  const answerBy = Date.now() + lostAfterMs - LOST_SEND_GRACE_MS;
  const send: SendUnderWay<B> = {
    controller: new AbortController(),
    batch,
    answerBy,
    liveUntil: answerBy + LOST_SEND_GRACE_MS,
    lost: false,
    live(stepMs) {
      send.answerBy = Math.max(send.answerBy, Date.now() + stepMs);
      send.liveUntil = send.answerBy + LOST_SEND_GRACE_MS;
    },
  };
  return send;
}

/**
 * Takes out of `sends` those that outlived their own deadline (all of them with `all`): each is marked lost and
 * aborted. Returns them.
 */
export function takeLost<K, S extends LosableSend>(sends: Map<K, S>, all = false): S[] {
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
