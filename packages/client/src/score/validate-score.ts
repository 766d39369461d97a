// Shared by the server client and the browser client: no Node-only imports here.
import { describeError, type RepeatLog, serializeValue, toJsonSafe } from "@svc/core";
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
  if (typeof traceId !== "string" || traceId.trim() === "")
    return {
      kind: "invalid trace id",
      reason: `traceId must be a non-empty string, got ${typeof traceId === "string" ? '""' : typeof traceId} ${named(name)}`,
      level: "warn",
    };
  if (traceId.charCodeAt(0) === 48 && /^0+$/.test(traceId))
    return {
      kind: "all-zero trace id",
      reason:
        `traceId ${traceId} is all zeros, the id of a span no tracer provider records, so the score would attach ` +
        `to no trace ${named(name)}. Register a tracer provider with SvcSpanProcessor before scoring spans.`,
      level: "warn",
    };
  return undefined;
}

function named(name: unknown): string {
  return `(name=${JSON.stringify(name)})`;
}

/** Why a score cannot be sent, or undefined when it can. Never throws, whatever it is given. */
export function invalidScoreReason(score: unknown): ScoreProblem | undefined {
  const read = readNameAndValue(score);
  return "kind" in read ? read : invalidNameOrValue(read.name, read.value);
}

function readNameAndValue(score: unknown): { name: unknown; value: unknown } | ScoreProblem {
  if (typeof score !== "object" || score === null || Array.isArray(score))
    return { kind: "not an object", reason: "a score must be an object" };
  try {
    const { name, value } = score as { name?: unknown; value?: unknown };
    return { name, value };
  } catch (error) {
    return { kind: "unreadable", reason: `its name or value cannot be read: ${describeError(error)}` };
  }
}

function invalidNameOrValue(name: unknown, value: unknown): ScoreProblem | undefined {
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
 * Copies a score into plain JSON data, so that later changes by the caller do not reach the wire. Fields JSON
 * cannot express are written as the tracing serializer writes them (an error as `{name, message, stack, cause}`,
 * a map as an object, a set as an array, a BigInt as text, a cycle or a value that cannot be read as a marker);
 * they cost only themselves.
 */
export function snapshotScore(score: object): Record<string, unknown> {
  const flat = flatCopy(score);
  if (flat !== undefined) return flat;
  const safe = toJsonSafe(score);
  return typeof safe === "object" && safe !== null && !Array.isArray(safe) ? (safe as Record<string, unknown>) : {};
}

/**
 * A copy of a plain object whose own values are all strings, finite numbers, booleans, null or undefined (the
 * usual score), equal to its JSON round trip once sent; undefined for anything else, which takes the careful path.
 * Never throws: a throwing getter also sends it to the careful path.
 */
function flatCopy(score: object): Record<string, unknown> | undefined {
  try {
    const proto = Object.getPrototypeOf(score);
    if (proto !== Object.prototype && proto !== null) return undefined;
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

/** Writes the text fields of a copied score that hold another kind of value as their text. */
function textFields(request: CreateScoreRequest): void {
  for (const field of TEXT_FIELDS) {
    const value: unknown = request[field];
    if (value !== undefined && value !== null && typeof value !== "string")
      request[field] = (serializeValue(value) ?? null) as never;
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
 * {@link prepareScore} without the timestamp, for callers that record the time themselves. Never throws.
 */
export function prepareUnstampedScore(
  score: unknown,
  ids: { traceId?: string; observationId?: string },
  environment: string | undefined,
): { ok: true; request: CreateScoreRequest & { id: string } } | ({ ok: false } & ScoreProblem) {
  const read = readNameAndValue(score);
  if ("kind" in read) return { ok: false, ...read };
  const problem = invalidNameOrValue(read.name, read.value);
  if (problem !== undefined) return { ok: false, ...problem };
  // The copy is ours: fill it in place (keys keep the order a spread would give them). Name and value are the
  // ones checked, whatever a getter would answer the second time.
  const request = snapshotScore(score as object) as unknown as CreateScoreRequest & { id: string };
  request.name = read.name as string;
  request.value = read.value as string | number;
  textFields(request);
  if (ids.traceId !== undefined) request.traceId = ids.traceId;
  if (ids.observationId !== undefined) request.observationId = ids.observationId;
  const badTraceId = traceIdProblem(request.traceId, request.name);
  if (badTraceId !== undefined) return { ok: false, ...badTraceId };
  request.id = typeof request.id === "string" && request.id !== "" ? request.id : crypto.randomUUID();
  // Set here so the key keeps its place; the caller writes the time.
  request.timestamp = "";
  if (request.environment == null && environment !== undefined) request.environment = environment;
  return { ok: true, request };
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
