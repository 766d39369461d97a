// Shared by the server client and the browser client: no Node-only imports here.
import { describeError, type RepeatLog } from "@svc/core";
import type { CreateScoreRequest } from "../api/generated/types.js";

/** Why a score must be dropped: `kind` names the cause in a few fixed words, `reason` explains it with detail. */
export interface ScoreProblem {
  kind: string;
  reason: string;
  /** Level of the log line: `error` (the default) for invalid scores, as the interface requires; `warn` otherwise. */
  level?: "warn";
}

/** Logs a dropped score at the problem's level, the first time per cause in full, then as counts. */
export function logDroppedScore(repeats: RepeatLog, owner: string, problem: ScoreProblem): void {
  const kind = `${owner}: score dropped: ${problem.kind}`;
  const line = `${owner}: score dropped: ${problem.reason}`;
  if (problem.level === "warn") repeats.warn(kind, line);
  else repeats.error(kind, line);
}

/**
 * Why a score's trace id cannot be used, or undefined when it can (or is not set). An all-zero id is what a span
 * carries when no tracer provider records it: the score would attach to no trace.
 */
export function traceIdProblem(traceId: unknown, name: unknown): ScoreProblem | undefined {
  if (traceId === undefined || traceId === null) return undefined;
  const named = `(name=${JSON.stringify(name)})`;
  if (typeof traceId !== "string" || traceId.trim() === "")
    return {
      kind: "invalid trace id",
      reason: `traceId must be a non-empty string, got ${typeof traceId === "string" ? '""' : typeof traceId} ${named}`,
      level: "warn",
    };
  if (/^0+$/.test(traceId))
    return {
      kind: "all-zero trace id",
      reason:
        `traceId ${traceId} is all zeros, the id of a span no tracer provider records, so the score would attach ` +
        `to no trace ${named}. Register a tracer provider with SvcSpanProcessor before scoring spans.`,
      level: "warn",
    };
  return undefined;
}

/** Why a score cannot be sent, or undefined when it can. Never throws, whatever it is given. */
export function invalidScoreReason(score: unknown): ScoreProblem | undefined {
  if (typeof score !== "object" || score === null || Array.isArray(score))
    return { kind: "not an object", reason: "a score must be an object" };
  const { name, value } = score as { name?: unknown; value?: unknown };
  if (typeof name !== "string" || name.trim() === "")
    return { kind: "empty name", reason: "name must be a non-empty string" };
  if (typeof value === "string") return undefined;
  if (typeof value === "number" && Number.isFinite(value)) return undefined;
  return {
    kind: "invalid value",
    reason: `value must be a finite number or a string (name=${JSON.stringify(name)})`,
  };
}

/**
 * Copies a score into plain JSON (so later changes by the caller do not reach the wire), or returns the
 * reason it cannot be copied: a cycle, a BigInt, a throwing getter.
 */
export function snapshotScore<T>(score: T): { ok: true; value: T; bytes: number } | ({ ok: false } & ScoreProblem) {
  const flat = flatCopy(score);
  if (flat !== undefined) return { ok: true, value: flat as T, bytes: flatSize(flat) };
  const kind = "not JSON-serializable";
  try {
    const text = JSON.stringify(score);
    if (text === undefined) return { ok: false, kind, reason: "the score is not JSON-serializable" };
    return { ok: true, value: JSON.parse(text) as T, bytes: text.length };
  } catch (error) {
    return { ok: false, kind, reason: `the score is not JSON-serializable: ${describeError(error)}` };
  }
}

/** About the size of a flat score as JSON: its keys and string values, and a little per field. */
function flatSize(flat: Record<string, unknown>): number {
  let size = 2;
  for (const key in flat) {
    const value = flat[key];
    size += key.length + 8 + (typeof value === "string" ? value.length : 16);
  }
  return size;
}

/**
 * A copy of a plain object whose own values are all strings, finite numbers, booleans, null or undefined (the
 * usual score), equal to its JSON round trip once sent; undefined for anything else, which takes the JSON path.
 * Never throws: a throwing getter also sends it to the JSON path, which reports it.
 */
function flatCopy(score: unknown): Record<string, unknown> | undefined {
  if (typeof score !== "object" || score === null) return undefined;
  const proto = Object.getPrototypeOf(score);
  if (proto !== Object.prototype && proto !== null) return undefined;
  try {
    const copy: Record<string, unknown> = {};
    for (const key in score) {
      if (!Object.hasOwn(score, key)) continue;
      const value = (score as Record<string, unknown>)[key];
      const type = typeof value;
      if (type === "string" || type === "boolean" || value === null) copy[key] = value;
      else if (type === "number") copy[key] = Number.isFinite(value) ? value : null;
      else if (type !== "undefined") return undefined;
    }
    return copy;
  } catch {
    return undefined;
  }
}

/**
 * The score to send for what a caller passed: a JSON copy with `ids` applied, an `id` (a UUID v4 when it has
 * none), `timestamp` set to now and `environment` defaulted; or why it must be dropped. Never throws.
 */
export function prepareScore(
  score: unknown,
  ids: { traceId?: string; observationId?: string },
  environment: string | undefined,
): { ok: true; request: CreateScoreRequest & { id: string } } | ({ ok: false } & ScoreProblem) {
  const prepared = prepareUnstampedScore(score, ids, environment);
  if (prepared.ok) prepared.request.timestamp = new Date().toISOString();
  return prepared;
}

/**
 * {@link prepareScore} without the timestamp, for callers that record the time themselves (formatting a date
 * costs about as much as the rest of the call, so a queue formats it when the batch is sent). Never throws.
 */
export function prepareUnstampedScore(
  score: unknown,
  ids: { traceId?: string; observationId?: string },
  environment: string | undefined,
): { ok: true; request: CreateScoreRequest & { id: string }; bytes: number } | ({ ok: false } & ScoreProblem) {
  const copy = snapshotScore(score);
  if (!copy.ok) return copy;
  const problem = invalidScoreReason(copy.value);
  if (problem !== undefined) return { ok: false, ...problem };
  // The copy is ours: fill it in place (keys keep the order a spread would give them).
  const request = copy.value as CreateScoreRequest & { id: string };
  if (ids.traceId !== undefined) request.traceId = ids.traceId;
  if (ids.observationId !== undefined) request.observationId = ids.observationId;
  const badTraceId = traceIdProblem(request.traceId, request.name);
  if (badTraceId !== undefined) return { ok: false, ...badTraceId };
  request.id = typeof request.id === "string" && request.id !== "" ? request.id : crypto.randomUUID();
  // Set here so the key keeps its place; the caller writes the time.
  request.timestamp = "";
  if (request.environment == null && environment !== undefined) request.environment = environment;
  return { ok: true, request, bytes: copy.bytes };
}

/**
 * The log line for a score batch the server accepted only in part (HTTP 207, the key `rejected` present and not
 * 0), or undefined when every score was accepted. Reads the response defensively; never throws.
 */
export function rejectionLine(response: unknown, batchSize: number): string | undefined {
  if (typeof response !== "object" || response === null || !("rejected" in response)) return undefined;
  const { rejected, errors } = response as { rejected: unknown; errors?: unknown };
  if (rejected === 0) return undefined;
  let detail: string;
  try {
    detail = JSON.stringify(errors ?? []) ?? "[]";
  } catch {
    detail = "(errors not readable)";
  }
  return `Svc rejected ${Number(rejected)} of ${batchSize} scores in batch: ${detail}`;
}

/**
 * The rejection of a score batch answered with this body text: how many the server rejected and the log line,
 * or undefined when every score was accepted (or the body says nothing about it). Never throws.
 */
export function rejectionOf(text: string, batchSize: number): { rejected: number; line: string } | undefined {
  let response: unknown;
  try {
    response = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
  const line = rejectionLine(response, batchSize);
  if (line === undefined) return undefined;
  const rejected = Number((response as { rejected: unknown }).rejected);
  return { rejected: Number.isFinite(rejected) ? Math.min(Math.max(0, rejected), batchSize) : batchSize, line };
}
