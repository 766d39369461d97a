import type { AttemptRequest, AttemptResponse } from "@svc/core";
import { mediaIdOf, OTLP_TRACES_PATH } from "@svc/core";
import { observationsOf, type TestObservation } from "./observations.js";

/** A score as the server received it from `svc.score`: the fields of the request, `timestamp` and `id` included. */
export interface TestScore {
  /** The score id (a UUID v4 unless the code set one). */
  id?: string;
  /** The score name. */
  name: string;
  /** The value: a number, or a string for categorical scores. */
  value: number | string;
  /** The trace scored. */
  traceId?: string;
  /** The observation scored. */
  observationId?: string;
  /** The other fields sent (`comment`, `metadata`, `timestamp`, `environment`...). */
  [field: string]: unknown;
}

/** A piece of media uploaded by the span processor (a base64 data URI in an input, output or metadata). */
export interface TestMedia {
  /** The media id, as in the reference that replaced the data URI. */
  mediaId: string;
  /** The MIME type of the content. */
  contentType: string;
  /** The uploaded content; undefined until the upload has happened. */
  bytes: Uint8Array | undefined;
  /** The trace of the observation the media was found in. */
  traceId: string | undefined;
  /** The observation the media was found in. */
  observationId: string | undefined;
  /** Where in the observation: `input`, `output` or `metadata`. */
  field: string | undefined;
}

const SCORES = "/api/public/scores";
const MEDIA = "/api/public/media";
/** Where the sink lets media be uploaded: a path of the host the registration went to. */
const UPLOADS = "/__svc-test-kit/media/";

/**
 * The in-memory server of the test kit: it takes the requests by which the SDK delivers data (OTLP span exports,
 * score batches, media registration, upload and status) from any host, keeps what they carry, and answers as the
 * server does. Every other request goes on to the network.
 */
export class TestSink {
  observations: TestObservation[] = [];
  scores: TestScore[] = [];
  readonly media = new Map<string, TestMedia>();

  /** Forgets everything received. */
  clear(): void {
    this.observations = [];
    this.scores = [];
    this.media.clear();
  }

  /** The transport interceptor: an answer for a delivery request, `undefined` for any other. */
  readonly intercept = (request: AttemptRequest): AttemptResponse | undefined => {
    const path = request.url.pathname;
    const method = request.method;
    if (method === "POST" && path.endsWith(OTLP_TRACES_PATH)) {
      this.observations.push(...observationsOf(this.#json(request)));
      return answer(200, {});
    }
    if (method === "POST" && path.endsWith(SCORES)) {
      const batch = this.#json(request);
      if (!Array.isArray(batch)) return answer(400, { message: "a score batch is a JSON array" });
      this.scores.push(...(batch as TestScore[]));
      return answer(200, { accepted: batch.length });
    }
    if (method === "POST" && path.endsWith(MEDIA)) return this.#register(request);
    if (method === "PUT" && path.includes(UPLOADS)) {
      const media = this.media.get(decodeURIComponent(path.slice(path.indexOf(UPLOADS) + UPLOADS.length)));
      if (media) media.bytes = request.body ?? new Uint8Array();
      return answer(media ? 200 : 404, {});
    }
    if (method === "PATCH" && path.includes(`${MEDIA}/`)) return answer(200, {});
    return undefined;
  };

  #register(request: AttemptRequest): AttemptResponse {
    const body = this.#json(request) as Record<string, unknown> | undefined;
    if (typeof body?.sha256Hash !== "string" || typeof body.contentType !== "string")
      return answer(400, { message: "sha256Hash and contentType are required" });
    const mediaId = mediaIdOf(body.sha256Hash);
    const known = this.media.get(mediaId);
    if (known?.bytes !== undefined) return answer(200, { mediaId, uploadUrl: null });
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    this.media.set(mediaId, {
      mediaId,
      contentType: body.contentType,
      bytes: undefined,
      traceId: str(body.traceId),
      observationId: str(body.observationId),
      field: str(body.field),
    });
    return answer(200, { mediaId, uploadUrl: `${request.url.origin}${UPLOADS}${encodeURIComponent(mediaId)}` });
  }

  /** The request body as JSON, gunzipped when it was sent compressed. */
  #json(request: AttemptRequest): unknown {
    let bytes = request.body ?? new Uint8Array();
    try {
      if (/gzip/i.test(request.headers["content-encoding"] ?? "")) {
        // node:zlib rather than DecompressionStream: test runners (jest) do not all expose the web streams.
        const zlib = process.getBuiltinModule("node:zlib") as { gunzipSync(bytes: Uint8Array): Uint8Array };
        bytes = zlib.gunzipSync(bytes);
      }
      return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch {
      return undefined;
    }
  }
}

function answer(status: number, body: unknown): AttemptResponse {
  return {
    status,
    headers: { "content-type": "application/json" },
    body: new TextEncoder().encode(JSON.stringify(body)),
  };
}
