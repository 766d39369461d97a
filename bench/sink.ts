// A local sink on 127.0.0.1 that stands in for the server: it decodes every request, checks its shape and counts
// spans, scores, requests and bytes as received on the wire. Besides the svc routes it takes OTLP at /v1/traces (as
// Phoenix does) and LangSmith's ingestion routes (`sink-langsmith.ts`), whose runs it counts as spans.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { gunzip, gunzipSync } from "node:zlib";
import {
  decodeBody,
  feedbackBody,
  jsonBatch,
  type LangsmithBatch,
  type LangsmithCompression,
  langsmithInfo,
  multipartBatch,
} from "./sink-langsmith.ts";
import { HEX16, HEX32, jsonSpans, protoSpans } from "./sink-otlp.ts";

const gunzipAsync = promisify(gunzip);

/** Counters since the last reset. */
export interface SinkStats {
  /** Spans received (OTLP spans, and LangSmith run creations), duplicates included. */
  spans: number;
  /** Distinct OTLP spans, and distinct LangSmith runs whose creation and end have both arrived. */
  uniqueSpans: number;
  /** Spans received more than once (for LangSmith runs: a second creation or a second completion of one run). */
  duplicateSpans: number;
  /** LangSmith run operations received: creations (post) and completions (patch). */
  runOperations: number;
  /** LangSmith runs with a creation but no end yet, or an end but no creation. */
  incompleteRuns: number;
  spanRequests: number;
  spanBytes: number;
  gzipRequests: number;
  scores: number;
  uniqueScores: number;
  scoreRequests: number;
  scoreBytes: number;
  otherRequests: number;
  malformed: string[];
}

export interface Sink {
  url: string;
  stats(): SinkStats;
  reset(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function emptyStats(): SinkStats {
  return {
    spans: 0,
    uniqueSpans: 0,
    duplicateSpans: 0,
    runOperations: 0,
    incompleteRuns: 0,
    spanRequests: 0,
    spanBytes: 0,
    gzipRequests: 0,
    scores: 0,
    uniqueScores: 0,
    scoreRequests: 0,
    scoreBytes: 0,
    otherRequests: 0,
    malformed: [],
  };
}

/** Options of {@link startSink}. */
export interface SinkOptions {
  /**
   * Answer traces requests at once and gunzip and count their spans only when the counts are asked for
   * (`/__stats`, `stats()`), so that the sink's own work does not compete with the measured process for the
   * machine's cores while it runs, as a server on another machine would not. Malformed bodies are then
   * recorded when counted, and answered 200. @defaultValue true
   */
  deferDecoding?: boolean;
  /** Compression the sink offers LangSmith's SDK at GET /info. @defaultValue "zstd" */
  langsmithCompression?: LangsmithCompression;
  /**
   * Answer each traces request (OTLP and LangSmith runs) this many milliseconds after it arrived, as a slow server
   * would. @defaultValue 0
   */
  answerDelayMs?: number;
}

interface RunState {
  posts: number;
  patches: number;
  ended: boolean;
  complete: boolean;
}

/** Starts the sink on 127.0.0.1 with an ephemeral port. */
export async function startSink({
  deferDecoding = true,
  langsmithCompression = "zstd",
  answerDelayMs = 0,
}: SinkOptions = {}): Promise<Sink> {
  let stats = emptyStats();
  let spanIds = new Set<string>();
  let scoreIds = new Set<string>();
  let runs = new Map<string, RunState>();
  let completeRuns = 0;
  const malformed = (what: string) => {
    if (stats.malformed.length < 20) stats.malformed.push(what);
    else stats.malformed[19] = `${what} (and more)`;
  };

  /** Counts the spans of one traces request body (already gunzipped); throws when it is malformed. */
  const countSpans = (body: Buffer, isProto: boolean) => {
    const spans = isProto ? protoSpans(body) : jsonSpans(JSON.parse(body.toString("utf8")));
    for (const span of spans) {
      if (typeof span.traceId !== "string" || !HEX32.test(span.traceId)) throw new Error("span without a trace id");
      if (typeof span.spanId !== "string" || !HEX16.test(span.spanId)) throw new Error("span without a span id");
      if (typeof span.name !== "string" || span.name === "") throw new Error("span without a name");
      stats.spans++;
      const key = `${span.traceId}:${span.spanId}`;
      if (spanIds.has(key)) stats.duplicateSpans++;
      else spanIds.add(key);
    }
    stats.uniqueSpans = spanIds.size + completeRuns;
  };

  const countScore = (score: unknown) => {
    const s = score as { id?: unknown; name?: unknown; value?: unknown };
    if (typeof s?.name !== "string" || s.name === "") throw new Error("score without a name");
    if (typeof s.value !== "number" && typeof s.value !== "string") throw new Error("score without a value");
    stats.scores++;
    if (typeof s.id === "string") scoreIds.add(s.id);
    stats.uniqueScores = scoreIds.size;
  };

  /** Counts what one LangSmith request carried: runs as spans (once created and ended), feedback as scores. */
  const countLangsmith = (raw: Buffer, batch: LangsmithBatch) => {
    if (batch.runs.length > 0 || batch.feedback.length === 0) {
      stats.spanRequests++;
      stats.spanBytes += raw.length;
    } else {
      stats.scoreRequests++;
      stats.scoreBytes += raw.length;
    }
    for (const op of batch.runs) {
      let state = runs.get(op.id);
      if (state === undefined) {
        state = { posts: 0, patches: 0, ended: false, complete: false };
        runs.set(op.id, state);
      }
      stats.runOperations++;
      if (op.method === "post") {
        stats.spans++;
        if (state.posts++ > 0) stats.duplicateSpans++;
      } else if (state.patches++ > 0) stats.duplicateSpans++;
      state.ended ||= op.ended;
      if (!state.complete && state.posts > 0 && state.ended) {
        state.complete = true;
        completeRuns++;
      }
    }
    for (const item of batch.feedback) countScore({ id: item.id, name: item.key, value: item.score });
    stats.uniqueSpans = spanIds.size + completeRuns;
    stats.incompleteRuns = runs.size - completeRuns;
  };

  /** Requests answered but not yet decoded (deferred decoding); each entry throws when its body is malformed. */
  let pending: { decode: () => void; what: string }[] = [];
  const settle = () => {
    const work = pending;
    pending = [];
    for (const { decode, what } of work) {
      try {
        decode();
      } catch (error) {
        malformed(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };

  /** Ends the answer delays when the sink closes. */
  const closing = new AbortController();
  /** Holds a traces request's answer until `answerDelayMs` after it arrived; false when the sink closed meanwhile. */
  const delayAnswer = async (arrived: number): Promise<boolean> => {
    const wait = answerDelayMs - (performance.now() - arrived);
    if (wait <= 0) return true;
    return sleep(wait, true, { signal: closing.signal }).catch(() => false);
  };

  const onLangsmith = async (req: IncomingMessage, raw: Buffer, res: ServerResponse, arrived: number) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const decode = () => {
      let batch: LangsmithBatch;
      try {
        const body = decodeBody(raw, req.headers["content-encoding"]);
        if (path === "/runs/multipart") batch = multipartBatch(body, req.headers["content-type"] ?? "");
        else if (path === "/runs/batch") batch = jsonBatch(body);
        else batch = feedbackBody(body);
      } catch (error) {
        stats.spanRequests++;
        stats.spanBytes += raw.length;
        throw error;
      }
      countLangsmith(raw, batch);
    };
    if (deferDecoding) pending.push({ decode, what: `${req.method} ${req.url}` });
    else decode();
    if (path !== "/feedback" && !(await delayAnswer(arrived))) return;
    send(res, path === "/runs/multipart" ? 202 : 200, {});
  };

  const onSpans = async (req: IncomingMessage, raw: Buffer, res: ServerResponse, arrived: number) => {
    stats.spanRequests++;
    stats.spanBytes += raw.length;
    const gzip = String(req.headers["content-encoding"] ?? "")
      .toLowerCase()
      .includes("gzip");
    if (gzip) stats.gzipRequests++;
    const isProto = String(req.headers["content-type"] ?? "").includes("protobuf");
    if (deferDecoding) {
      pending.push({
        decode: () => countSpans(gzip ? gunzipSync(raw) : raw, isProto),
        what: `${req.method} ${req.url}`,
      });
    } else countSpans(gzip ? await gunzipAsync(raw) : raw, isProto);
    if (!(await delayAnswer(arrived))) return;
    if (isProto) {
      res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": 0 });
      res.end();
    } else send(res, 200, {});
  };

  const server: Server = createServer((req, res) => {
    const arrived = performance.now();
    readBody(req)
      .then(async (raw) => {
        const path = (req.url ?? "/").split("?")[0]!;
        if (path === "/__stats") {
          settle();
          return send(res, 200, stats);
        }
        if (path === "/__reset") {
          reset();
          return send(res, 200, {});
        }
        if (req.method === "POST" && (path === "/api/public/otel/v1/traces" || path === "/v1/traces")) {
          return await onSpans(req, raw, res, arrived);
        }
        if (req.method === "POST" && (path === "/runs/multipart" || path === "/runs/batch" || path === "/feedback")) {
          return await onLangsmith(req, raw, res, arrived);
        }
        if (req.method === "POST" && path === "/api/public/scores") {
          stats.scoreRequests++;
          stats.scoreBytes += raw.length;
          const body: unknown = JSON.parse(raw.toString("utf8"));
          if (!Array.isArray(body)) throw new Error("scores body is not an array");
          if (body.length === 0 || body.length > 100) throw new Error(`scores batch of ${body.length}`);
          for (const score of body) countScore(score);
          return send(res, 200, {});
        }
        if (req.method === "POST" && path === "/api/public/ingestion") {
          stats.scoreRequests++;
          stats.scoreBytes += raw.length;
          const batch = (JSON.parse(raw.toString("utf8")) as { batch?: unknown }).batch;
          if (!Array.isArray(batch)) throw new Error("ingestion body without a batch");
          const successes: { id: unknown; status: number }[] = [];
          for (const event of batch as { id?: unknown; type?: unknown; body?: unknown }[]) {
            if (event.type !== "score-create") throw new Error(`unexpected ingestion event ${String(event.type)}`);
            countScore(event.body);
            successes.push({ id: event.id, status: 201 });
          }
          return send(res, 207, { successes, errors: [] });
        }
        stats.otherRequests++;
        if (req.method === "POST" && path === "/api/public/media") return send(res, 200, { mediaId: "bench-media" });
        if (req.method === "PATCH" && path.startsWith("/api/public/media/")) return send(res, 200, {});
        if (req.method === "GET" && path === "/api/public/projects") return send(res, 200, { data: [{ id: "bench" }] });
        if (req.method === "GET" && path === "/info") return send(res, 200, langsmithInfo(langsmithCompression));
        malformed(`unexpected route ${req.method} ${path}`);
        return send(res, 404, { message: "not found" });
      })
      .catch((error: unknown) => {
        malformed(`${req.method} ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) send(res, 400, { message: "malformed" });
      });
  });
  const reset = () => {
    pending = [];
    stats = emptyStats();
    spanIds = new Set();
    scoreIds = new Set();
    runs = new Map();
    completeRuns = 0;
  };
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => {
      settle();
      return { ...stats, malformed: [...stats.malformed] };
    },
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
