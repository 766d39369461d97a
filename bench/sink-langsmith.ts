// What the sink understands of LangSmith's ingestion API, as its JS SDK (`langsmith`) uses it: the server description
// at GET /info, runs in multipart bodies (POST /runs/multipart, compressed as a whole with zstd or gzip) or in JSON
// batches (POST /runs/batch), and feedback as multipart parts or single JSON bodies (POST /feedback).
import { gunzipSync, zstdDecompressSync } from "node:zlib";

/** How the sink tells LangSmith's SDK to compress its multipart bodies (through GET /info). */
export type LangsmithCompression = "zstd" | "gzip" | "none";

/**
 * The body of GET /info. The SDK reads `batch_ingest_config` (multipart, at most `size_limit` operations and
 * `size_limit_bytes` uncompressed bytes per request) and `instance_flags` (zstd when offered and Node has it, else
 * gzip when offered, else no compression).
 */
export function langsmithInfo(compression: LangsmithCompression): Record<string, unknown> {
  return {
    version: "0.12.0",
    batch_ingest_config: {
      use_multipart_endpoint: true,
      size_limit: 100,
      size_limit_bytes: 20_971_520,
      scale_up_qsize_trigger: 1000,
      scale_up_nthreads_limit: 16,
      scale_down_nempty_trigger: 4,
    },
    instance_flags: {
      zstd_compression_enabled: compression === "zstd",
      gzip_body_enabled: compression !== "none",
    },
  };
}

/** One run operation: the run's creation (`post`) or its completion (`patch`). */
export interface RunOperation {
  method: "post" | "patch";
  id: string;
  /** The operation carries the run's end time: the run is complete once its post has arrived too. */
  ended: boolean;
}

/** A feedback item, counted as a score. */
export interface FeedbackItem {
  id: string;
  key: string;
  score: unknown;
}

/** What one LangSmith request carried. */
export interface LangsmithBatch {
  runs: RunOperation[];
  feedback: FeedbackItem[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The parts that may follow a run's main part, each a JSON value. */
const RUN_FIELDS = new Set(["inputs", "outputs", "events", "extra", "error", "serialized"]);

/** Undoes the request's Content-Encoding (gzip or zstd); throws on any other. */
export function decodeBody(raw: Buffer, contentEncoding: string | undefined): Buffer {
  const encoding = (contentEncoding ?? "").trim().toLowerCase();
  if (encoding === "" || encoding === "identity") return raw;
  if (encoding === "gzip") return gunzipSync(raw);
  if (encoding === "zstd") return zstdDecompressSync(raw);
  throw new Error(`unsupported content-encoding ${encoding}`);
}

interface Part {
  name: string;
  contentType: string;
  data: Buffer;
}

/** Splits a multipart/form-data body; throws when the framing is wrong. */
export function multipartParts(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (!boundary) throw new Error("multipart body without a boundary");
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  if (body.indexOf(delimiter) !== 0) throw new Error("multipart body does not start with its boundary");
  const parts: Part[] = [];
  let pos = delimiter.length;
  for (;;) {
    if (body.toString("latin1", pos, pos + 2) === "--") return parts;
    if (body.toString("latin1", pos, pos + 2) !== "\r\n") throw new Error("malformed multipart boundary line");
    const headersEnd = body.indexOf("\r\n\r\n", pos + 2);
    if (headersEnd < 0) throw new Error("multipart part without a header end");
    const headers = body.toString("utf8", pos + 2, headersEnd).split("\r\n");
    const header = (name: string) =>
      headers
        .find((h) => h.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim() ?? "";
    const name = /name="([^"]*)"/.exec(header("content-disposition"))?.[1];
    if (!name) throw new Error("multipart part without a name");
    const end = body.indexOf(next, headersEnd + 4);
    if (end < 0) throw new Error(`multipart part ${name} not closed`);
    parts.push({ name, contentType: header("content-type"), data: body.subarray(headersEnd + 4, end) });
    pos = end + next.length;
  }
}

function parseJson(part: Part): unknown {
  if (!part.contentType.startsWith("application/json")) {
    throw new Error(`part ${part.name} has content type ${part.contentType}`);
  }
  const declared = /length=(\d+)/.exec(part.contentType)?.[1];
  if (declared !== undefined && Number(declared) !== part.data.length) {
    throw new Error(`part ${part.name} declares ${declared} bytes and has ${part.data.length}`);
  }
  return JSON.parse(part.data.toString("utf8"));
}

/** Checks a run's main payload: ids, dotted order, and for a creation its name and type. */
function checkRun(method: "post" | "patch", id: string, run: Record<string, unknown>): RunOperation {
  if (run.id !== id || !UUID.test(id)) throw new Error(`${method} of run ${id} with id ${String(run.id)}`);
  if (typeof run.trace_id !== "string" || !UUID.test(run.trace_id)) throw new Error(`run ${id} without a trace id`);
  if (typeof run.dotted_order !== "string" || run.dotted_order === "") {
    throw new Error(`run ${id} without a dotted order`);
  }
  if (method === "post" && (typeof run.name !== "string" || run.name === "" || typeof run.run_type !== "string")) {
    throw new Error(`run ${id} created without a name or type`);
  }
  return { method, id, ended: run.end_time !== undefined && run.end_time !== null };
}

function checkFeedback(item: Record<string, unknown>): FeedbackItem {
  if (typeof item.id !== "string" || !UUID.test(item.id)) throw new Error("feedback without an id");
  if (typeof item.key !== "string" || item.key === "") throw new Error(`feedback ${item.id} without a key`);
  if (typeof item.score !== "number" && item.value === undefined)
    throw new Error(`feedback ${item.id} without a score`);
  return { id: item.id, key: item.key, score: item.score ?? item.value };
}

/** Reads a POST /runs/multipart body (already decompressed); throws when anything in it is malformed. */
export function multipartBatch(body: Buffer, contentType: string): LangsmithBatch {
  const batch: LangsmithBatch = { runs: [], feedback: [] };
  const mains = new Set<string>();
  for (const part of multipartParts(body, contentType)) {
    const [kind = "", id = "", field, ...rest] = part.name.split(".");
    if (rest.length > 0) throw new Error(`unexpected part name ${part.name}`);
    if (kind === "attachment") continue;
    const value = parseJson(part) as Record<string, unknown>;
    if (kind === "feedback" && field === undefined) {
      if (value.id !== id) throw new Error(`feedback part ${id} with id ${String(value.id)}`);
      batch.feedback.push(checkFeedback(value));
    } else if ((kind === "post" || kind === "patch") && field === undefined) {
      batch.runs.push(checkRun(kind, id, value));
      mains.add(`${kind}.${id}`);
    } else if ((kind === "post" || kind === "patch") && field !== undefined && RUN_FIELDS.has(field)) {
      if (!mains.has(`${kind}.${id}`)) throw new Error(`part ${part.name} before its run's ${kind}`);
    } else throw new Error(`unexpected part name ${part.name}`);
  }
  return batch;
}

/** Reads a POST /runs/batch body (JSON `{post, patch}`, already decompressed). */
export function jsonBatch(body: Buffer): LangsmithBatch {
  const parsed = JSON.parse(body.toString("utf8")) as { post?: unknown; patch?: unknown };
  const batch: LangsmithBatch = { runs: [], feedback: [] };
  for (const method of ["post", "patch"] as const) {
    const runs = parsed[method] ?? [];
    if (!Array.isArray(runs)) throw new Error(`runs batch with a ${method} that is not an array`);
    for (const run of runs as Record<string, unknown>[]) batch.runs.push(checkRun(method, String(run.id), run));
  }
  if (batch.runs.length === 0) throw new Error("empty runs batch");
  return batch;
}

/** Reads a POST /feedback body: one feedback item. */
export function feedbackBody(body: Buffer): LangsmithBatch {
  return { runs: [], feedback: [checkFeedback(JSON.parse(body.toString("utf8")) as Record<string, unknown>)] };
}
