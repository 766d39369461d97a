/** What a contender offers the spans workload: one trace per call, then flush and shutdown. */
export interface SpansContender {
  /** Creates one trace of 10 observations with the given payload index; synchronous. */
  trace(i: number): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** What a contender offers the scores workload. */
export interface ScoresContender {
  create(i: number): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Where the sink listens and the credentials every contender sends. */
export interface SinkTarget {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
}
