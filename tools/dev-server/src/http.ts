import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import { gunzipSync, inflateSync } from "node:zlib";

/** An error that becomes a JSON answer with its status: `{ message, error }`. */
export class HttpError extends Error {
  override name = "HttpError";
  readonly status: number;
  readonly details: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.details = details;
    this.headers = headers;
  }
}

/** The largest request body the server reads, after decompression. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Reads the whole body, undoing `Content-Encoding: gzip` or `deflate`. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks);
  const encoding = String(req.headers["content-encoding"] ?? "").toLowerCase();
  if (raw.length === 0 || encoding === "" || encoding === "identity") return raw;
  try {
    if (encoding.includes("gzip")) return gunzipSync(raw, { maxOutputLength: MAX_BODY_BYTES });
    if (encoding.includes("deflate")) return inflateSync(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch (error) {
    throw new HttpError(400, `Could not decompress the ${encoding} request body: ${(error as Error).message}`);
  }
  throw new HttpError(415, `Unsupported Content-Encoding "${encoding}"; send gzip, deflate or identity`);
}

/** Parses a JSON body; an empty body is `undefined`. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new HttpError(400, `Request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const payload = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(payload)),
    ...headers,
  });
  res.end(payload);
}

/** Writes an error as `{ message, error }`, the body shape of the real server's errors. */
export function sendError(res: ServerResponse, error: HttpError): void {
  const body = { message: error.message, error: error.details ?? STATUS_CODES[error.status] ?? "Error" };
  sendJson(res, error.status, body, error.headers);
}
