import type { Backend } from "../transport/backend.js";

// What an upload of media is made of: shared by the uploader and the code it loads on first use.

/** What a piece of media belongs to on the server. */
export interface MediaTarget {
  field: string;
  traceId?: string;
  observationId?: string;
  datasetId?: string;
  datasetItemId?: string;
}

/** One piece of media to store. */
export interface MediaUpload {
  mediaId: string;
  sha256Hash: string;
  contentType: string;
  bytes: Uint8Array;
  target: MediaTarget;
}

/** The server and credentials media is registered with. */
export interface MediaServer {
  baseUrl: string;
  /** Auth and identity headers of REST calls. */
  headers: Record<string, string>;
  /** Time limit of each request attempt. */
  timeoutMs: number;
  /** Uploads run in the background, started by the span processor rather than awaited by a caller. @defaultValue false */
  background?: boolean;
  /** Sends through this backend instead of the runtime's own (the client's `fetch` option). */
  backend?: Backend;
}

/** The outcome of an upload; `reason` says what failed. */
export type MediaUploadResult = { ok: true; alreadyStored: boolean } | { ok: false; reason: string };
