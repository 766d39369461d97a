// Shared by the server client and the browser client: no Node-only imports here.
import { describeError, type RepeatLog, serializeValue, toJsonSafe } from "@svc/core";
import type { CreateScoreRequest } from "../api/generated/types.js";

/** Why a score must be dropped: `kind` names the cause in a few fixed words, `reason` explains it with detail. */
interface ScoreProblem {
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
function traceIdProblem(traceId: unknown, name: unknown): ScoreProblem | undefined {
  const named = `(name=${JSON.stringify(name)})`;
  if (traceId === undefined || traceId === null) return undefined;
  if (typeof traceId !== "string" || traceId.trim() === "")
    return {
      kind: "invalid trace id",
      reason: `traceId must be a non-empty string, got ${typeof traceId === "string" ? '""' : typeof traceId} ${named}`,
      level: "warn",
    };
  if (traceId.charCodeAt(0) === 48 && /^0+$/.test(traceId))
    return {
      kind: "all-zero trace id",
      reason:
        `traceId ${traceId} is all zeros, the id of a span no tracer provider records, so the score would attach ` +
        `to no trace ${named}. Register a tracer provider with SvcSpanProcessor before scoring spans.`,
      level: "warn",
    };
  return undefined;
}

/** The name and value of a score, or why they cannot be used. Never throws, whatever it is given. */
function nameAndValue(score: unknown): { name: string; value: string | number } | ScoreProblem {
  if (typeof score !== "object" || score === null || Array.isArray(score))
    return { kind: "not an object", reason: "a score must be an object" };
  let name: unknown;
  let value: unknown;
  try {
    ({ name, value } = score as { name?: unknown; value?: unknown });
  } catch (error) {
    return { kind: "unreadable", reason: `its name or value cannot be read: ${describeError(error)}` };
  }
  if (typeof name !== "string" || name.trim() === "")
    return { kind: "empty name", reason: "name must be a non-empty string" };
  if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) return { name, value };
  return { kind: "invalid value", reason: `value must be a finite number or a string (name=${JSON.stringify(name)})` };
}

/**
 * A plain JSON copy of a score, so later changes by the caller do not reach the wire: a flat object of primitives
 * copied as is, anything else as the tracing serializer writes it (markers for cycles and unreadable values).
 */
function snapshotScore(score: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  try {
    const proto = Object.getPrototypeOf(score);
    let flat = proto === Object.prototype || proto === null;
    for (const key in score) {
      if (!flat) break;
      if (!Object.hasOwn(score, key)) continue;
      const value = (score as Record<string, unknown>)[key];
      const type = typeof value;
      if (type === "string" || type === "boolean" || value === null) copy[key] = value;
      else if (type === "number") copy[key] = Number.isFinite(value) ? value : null;
      else flat = type === "undefined";
    }
    if (flat) return copy;
  } catch {
    // A getter threw: the careful copy below marks what cannot be read.
  }
  const safe = toJsonSafe(score);
  return typeof safe === "object" && safe !== null && !Array.isArray(safe) ? (safe as Record<string, unknown>) : {};
}

/** Fields the server takes as text only: one of another type would make the server refuse the whole batch. */
const TEXT_FIELDS = [
  "id",
  "traceId",
  "sessionId",
  "observationId",
  "datasetRunId",
  "comment",
  "environment",
  "queueId",
  "dataType",
  "configId",
  "source",
] as const;

/**
 * The score to send (a JSON copy with `ids` applied, text fields as text, `id` and `environment` defaulted, `timestamp`
 * empty for the caller to write in its place), or why it must be dropped. Never throws.
 */
export function prepareScore(
  score: unknown,
  ids: { traceId?: string; observationId?: string },
  environment: string | undefined,
): { ok: true; request: CreateScoreRequest & { id: string } } | ({ ok: false } & ScoreProblem) {
  const read = nameAndValue(score);
  if ("kind" in read) return { ok: false, ...read };
  // The copy is ours: fill it in place. Name and value are the ones checked, whatever a getter would answer now.
  const request = snapshotScore(score as object) as unknown as CreateScoreRequest & { id: string };
  request.name = read.name;
  request.value = read.value;
  for (const field of TEXT_FIELDS) {
    const value: unknown = request[field];
    if (value !== undefined && value !== null && typeof value !== "string")
      request[field] = (serializeValue(value) ?? null) as never;
  }
  if (ids.traceId !== undefined) request.traceId = ids.traceId;
  if (ids.observationId !== undefined) request.observationId = ids.observationId;
  const badTraceId = traceIdProblem(request.traceId, request.name);
  if (badTraceId !== undefined) return { ok: false, ...badTraceId };
  request.id = typeof request.id === "string" && request.id !== "" ? request.id : crypto.randomUUID();
  request.timestamp = "";
  if (request.environment == null && environment !== undefined) request.environment = environment;
  return { ok: true, request };
}

/**
 * How many scores of a batch the server rejected (HTTP 207, `rejected` not 0) and the log line; undefined when all
 * were accepted or the answer does not say. Never throws.
 */
export function rejectionOf(response: unknown, batchSize: number): { rejected: number; line: string } | undefined {
  if (typeof response !== "object" || response === null || !("rejected" in response)) return undefined;
  const { rejected, errors } = response as { rejected: unknown; errors?: unknown };
  if (rejected === 0) return undefined;
  let detail: string;
  try {
    detail = JSON.stringify(errors ?? []) ?? "[]";
  } catch {
    detail = "(errors not readable)";
  }
  const count = Number(rejected);
  return {
    rejected: Number.isFinite(count) ? Math.min(Math.max(0, count), batchSize) : batchSize,
    line: `Svc rejected ${count} of ${batchSize} scores in batch: ${detail}`,
  };
}
