/**
 * Time a send is given beyond the step it is in (its request's timeout, a mask's) before it is taken as lost: a
 * runtime that ends the request that started it (Cloudflare Workers) leaves it unsettled, with no timer to end it.
 */
export const LOST_SEND_GRACE_MS = 5_000;

/** A send under way, as the lost-send watch sees it. */
export interface WatchedSend {
  /** Until when it may still settle by itself (epoch ms): the end of its step, plus the grace. */
  liveUntil: number;
}

/**
 * Watches the sends under way while a flush waits (until `deadline`): calls `reclaim` as soon as one has outlived
 * its own deadline (`liveUntil`), and again for each that follows, those that start during the watch included (none
 * is lost before `lostAfterMs` from its start). Returns the function that stops the watch.
 */
export function watchLostSends(
  sends: () => Iterable<WatchedSend>,
  deadline: number,
  reclaim: () => void,
  lostAfterMs = Number.POSITIVE_INFINITY,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = (): void => {
    let earliest = Date.now() + lostAfterMs;
    for (const send of sends()) earliest = Math.min(earliest, send.liveUntil);
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

/** A send under way that can be taken as lost: aborted, and its late outcome ignored. */
export interface LosableSend extends WatchedSend {
  controller: AbortController;
  lost: boolean;
}

/** A step of the send begins that may take `stepMs`: it is not taken as lost before that and the grace have passed. */
export function extendLife(send: WatchedSend, stepMs: number): void {
  send.liveUntil = Math.max(send.liveUntil, Date.now() + stepMs + LOST_SEND_GRACE_MS);
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
