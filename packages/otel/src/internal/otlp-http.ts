import { runtimeGzip } from "./compress.js";

/** Where and how one OTLP/HTTP request is sent. */
export interface HttpExportTarget {
  endpoint: string;
  headers: Record<string, string>;
  compression: "gzip" | "none";
  /** Time one attempt may take. */
  timeoutMs: number;
}

/** The outcome of sending one body, after retries. */
export type SendResult = { ok: true } | { ok: false; reason: string };

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Attempts after the first one. */
export const MAX_RETRIES = 5;
const FIRST_DELAY_MS = 1000;
const DELAY_FACTOR = 1.5;
const MAX_DELAY_MS = 5000;
/** No retry starts later than this after the first attempt started. */
export const RETRY_WINDOW_MS = 30_000;

/** A request body ready to send, with the headers that describe it. */
export interface PreparedBody {
  body: Uint8Array;
  headers: Record<string, string>;
}

/**
 * Makes the request body from the pieces of an OTLP/JSON text: gzipped off the main thread as the pieces come
 * when asked and the runtime can, else the text as UTF-8.
 */
export async function prepareOtlpBody(target: HttpExportTarget, pieces: Iterator<string>): Promise<PreparedBody> {
  const headers = { ...target.headers };
  const gzip = target.compression === "gzip" ? runtimeGzip() : null;
  if (!gzip) {
    let text = "";
    for (let next = pieces.next(); !next.done; next = pieces.next()) text += next.value;
    return { body: new TextEncoder().encode(text), headers };
  }
  headers["content-encoding"] = "gzip";
  return { body: await gzip(pieces), headers };
}

/**
 * POSTs a prepared body with a per-attempt timeout; 429, 502, 503, 504 and network errors are
 * retried with bounded backoff that honours Retry-After. Never rejects.
 */
export async function postOtlpBody(target: HttpExportTarget, { body, headers }: PreparedBody): Promise<SendResult> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    let retryAfterMs: number | undefined;
    try {
      const res = await fetch(target.endpoint, {
        method: "POST",
        headers,
        body: body as BodyInit,
        signal: AbortSignal.timeout(target.timeoutMs),
      });
      if (res.ok) {
        await res.body?.cancel();
        return { ok: true };
      }
      const text = await res.text().catch(() => "");
      reason = `HTTP ${res.status}${text ? ` ${text.slice(0, 300)}` : ""}`;
      if (!RETRYABLE_STATUS.has(res.status)) return { ok: false, reason };
      retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
    } catch (error) {
      reason = describe(error);
    }
    const delay = retryAfterMs ?? backoffMs(attempt);
    if (attempt >= MAX_RETRIES || Date.now() - started + delay > RETRY_WINDOW_MS)
      return { ok: false, reason: `${reason} (after ${attempt + 1} attempts)` };
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function backoffMs(attempt: number): number {
  const base = Math.min(FIRST_DELAY_MS * DELAY_FACTOR ** attempt, MAX_DELAY_MS);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Retry-After in seconds or as an HTTP date, as milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A short description of a thrown value, naming the cause of fetch failures. */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : `${error.name}: ${error.message}`;
  }
  return String(error);
}
