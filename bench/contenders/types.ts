/** What a contender offers the spans workload: one trace per call, then flush and shutdown. */
export interface SpansContender {
  /**
   * Creates one trace of 10 observations with the given payload index. Synchronous, or, for an SDK that finishes its
   * runs in promise callbacks (LangSmith's `traceable`), a promise that settles through promise callbacks alone (no
   * turn of the event loop) once the SDK has queued the whole trace; the runner awaits it inside the timed region.
   */
  trace(i: number): void | Promise<void>;
  /**
   * Makes this contender's provider the one its SDK creates spans with, where the SDK keeps it process-wide (v6's
   * `setSvcTracerProvider`): a runner with several such contenders in one process calls it before each turn, untimed.
   */
  activate?(): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
  /** Spans waiting and in flight, and those given up on (v6's `health()`), for the scenarios that watch delivery. */
  health?(): { queued: number; inFlight: number; dropped: Record<string, number> };
}

/** What a contender offers the scores workload. */
export interface ScoresContender {
  /** Creates score number `i`; a returned promise is awaited inside the timed region, as for `trace()`. */
  create(i: number): void | Promise<void>;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Where the sink listens and the credentials every contender sends. */
export interface SinkTarget {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
}
