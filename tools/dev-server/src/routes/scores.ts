import { randomUUID } from "node:crypto";
import { HttpError } from "../http.ts";
import { cursorPage, fieldGroups, intParam, listParam, timeParam } from "../paging.ts";
import type { Route } from "../route.ts";
import type { DevStore, StoredScore } from "../store.ts";

/** The most scores one `POST /api/public/scores` request may carry. */
export const MAX_SCORES_PER_REQUEST = 100;

const DATA_TYPES = ["NUMERIC", "BOOLEAN", "CATEGORICAL", "TEXT", "CORRECTION"] as const;
type DataType = (typeof DATA_TYPES)[number];

type ScoreInput = Record<string, unknown>;

const optionalString = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** Why a score cannot be stored, or undefined when it can. Rules follow the server's score validation. */
export function invalidScoreReason(score: unknown): string | undefined {
  if (typeof score !== "object" || score === null || Array.isArray(score)) return "a score must be a JSON object";
  const s = score as ScoreInput;
  if (typeof s.name !== "string" || s.name.trim() === "") return "name must be a non-empty string";
  const dataType = s.dataType ?? undefined;
  if (dataType !== undefined && !DATA_TYPES.includes(dataType as DataType)) {
    return `dataType must be one of ${DATA_TYPES.join(", ")}, got ${JSON.stringify(dataType)}`;
  }
  const v = s.value;
  const finite = typeof v === "number" && Number.isFinite(v);
  switch (dataType) {
    case "NUMERIC":
      if (!finite) return "value must be a finite number for dataType NUMERIC";
      break;
    case "BOOLEAN":
      if (v !== 0 && v !== 1) return "value must be 0 or 1 for dataType BOOLEAN";
      break;
    case "CATEGORICAL":
    case "CORRECTION":
      if (typeof v !== "string") return `value must be a string for dataType ${dataType}`;
      break;
    case "TEXT":
      if (typeof v !== "string" || v.length < 1 || v.length > 500) {
        return "value must be a string of 1 to 500 characters for dataType TEXT";
      }
      break;
    default:
      if (!finite && typeof v !== "string") return "value must be a finite number or a string";
  }
  if (s.source === "ANNOTATION" && !s.configId && dataType !== "CORRECTION") {
    return "source ANNOTATION needs a configId";
  }
  if (
    s.metadata !== undefined &&
    s.metadata !== null &&
    (typeof s.metadata !== "object" || Array.isArray(s.metadata))
  ) {
    return "metadata must be a JSON object";
  }
  return undefined;
}

function toStoredScore(s: ScoreInput, now: string, previous: StoredScore | undefined): StoredScore {
  const dataType: DataType =
    (s.dataType as DataType | undefined) ?? (typeof s.value === "number" ? "NUMERIC" : "CATEGORICAL");
  const timestamp = typeof s.timestamp === "string" && !Number.isNaN(Date.parse(s.timestamp)) ? s.timestamp : now;
  return {
    id: optionalString(s.id) ?? randomUUID(),
    name: s.name as string,
    value: s.value as number | string,
    dataType,
    source: optionalString(s.source) ?? "API",
    timestamp: new Date(timestamp).toISOString(),
    environment: optionalString(s.environment) ?? "default",
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    comment: optionalString(s.comment),
    configId: optionalString(s.configId),
    metadata: (s.metadata as Record<string, unknown> | undefined) ?? null,
    queueId: optionalString(s.queueId),
    traceId: optionalString(s.traceId),
    observationId: optionalString(s.observationId),
    sessionId: optionalString(s.sessionId),
    datasetRunId: optionalString(s.datasetRunId),
  };
}

/** One rejected score of a batch: its position, its id when it had one, and why. */
export interface ScoreError {
  index: number;
  id?: string;
  message: string;
}

/** Stores the valid scores of a batch (a score with a known id replaces the stored one). */
export function acceptScores(store: DevStore, batch: unknown[], preRejected: Map<number, string>) {
  const now = new Date().toISOString();
  const errors: ScoreError[] = [];
  let accepted = 0;
  batch.forEach((score, index) => {
    const reason = invalidScoreReason(score) ?? preRejected.get(index);
    if (reason) {
      const id = optionalString((score as ScoreInput | null)?.id);
      errors.push({ index, ...(id ? { id } : {}), message: reason });
      return;
    }
    const input = score as ScoreInput;
    const stored = toStoredScore(input, now, store.scores.get(String(input.id)));
    store.scores.set(stored.id, stored);
    accepted++;
  });
  return { accepted, errors };
}

/** A stored score in the Scores v3 shape, with the requested field groups. */
export function scoreV3(score: StoredScore, projectId: string, groups: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: score.id,
    projectId,
    name: score.name,
    value: score.dataType === "BOOLEAN" ? score.value === 1 : score.value,
    dataType: score.dataType,
    source: score.source,
    timestamp: score.timestamp,
    environment: score.environment,
    createdAt: score.createdAt,
    updatedAt: score.updatedAt,
  };
  if (groups.includes("details")) {
    Object.assign(out, { comment: score.comment, configId: score.configId, metadata: score.metadata });
  }
  if (groups.includes("subject")) out.subject = subjectOf(score);
  if (groups.includes("annotation")) Object.assign(out, { authorUserId: null, queueId: score.queueId });
  return out;
}

function subjectOf(score: StoredScore) {
  if (score.observationId) return { kind: "observation", id: score.observationId, traceId: score.traceId };
  if (score.traceId) return { kind: "trace", id: score.traceId };
  if (score.sessionId) return { kind: "session", id: score.sessionId };
  if (score.datasetRunId) return { kind: "experiment", id: score.datasetRunId };
  return null;
}

const SCORE_FIELD_GROUPS = ["details", "subject", "annotation"];

function matchesFilters(score: StoredScore, query: URLSearchParams): boolean {
  const inList = (name: string, value: string | null, caseless = false) => {
    const wanted = listParam(query, name);
    if (!wanted) return true;
    if (value === null) return false;
    return caseless ? wanted.some((w) => w.toUpperCase() === value.toUpperCase()) : wanted.includes(value);
  };
  const single = (name: string, value: string | null) => !query.get(name) || query.get(name) === value;
  const valueMin = query.get("valueMin");
  const valueMax = query.get("valueMax");
  const from = timeParam(query, "fromTimestamp");
  const to = timeParam(query, "toTimestamp");
  const time = Date.parse(score.timestamp);
  return (
    inList("id", score.id) &&
    inList("name", score.name) &&
    inList("source", score.source, true) &&
    inList("dataType", score.dataType, true) &&
    inList("environment", score.environment) &&
    inList("configId", score.configId) &&
    inList("queueId", score.queueId) &&
    inList("experimentId", score.datasetRunId) &&
    single("traceId", score.traceId) &&
    single("sessionId", score.sessionId) &&
    single("observationId", score.observationId) &&
    (!query.get("value") || String(score.value) === query.get("value")) &&
    (!valueMin || (typeof score.value === "number" && score.value >= Number(valueMin))) &&
    (!valueMax || (typeof score.value === "number" && score.value <= Number(valueMax))) &&
    (from === undefined || time >= from) &&
    (to === undefined || time < to)
  );
}

export const scoreRoutes: Route[] = [
  {
    method: "POST",
    path: "/api/public/scores",
    auth: "basic-or-public-key",
    body: "json",
    batch: true,
    handle(ctx) {
      const batch = ctx.body;
      if (!Array.isArray(batch)) {
        throw new HttpError(400, "Request body must be a JSON array of scores (CreateScoreRequest[])");
      }
      if (batch.length === 0) throw new HttpError(400, "Request body must contain at least one score");
      if (batch.length > MAX_SCORES_PER_REQUEST) {
        throw new HttpError(400, `At most ${MAX_SCORES_PER_REQUEST} scores per request, got ${batch.length}`);
      }
      const { accepted, errors } = acceptScores(ctx.store, batch, ctx.itemErrors ?? new Map());
      if (errors.length === 0) return { status: 200, body: { accepted } };
      return { status: 207, body: { accepted, rejected: errors.length, errors } };
    },
  },
  {
    method: "GET",
    path: "/api/public/v3/scores",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const limit = intParam(ctx.query, "limit", 50, 100);
      const groups = fieldGroups(ctx.query, SCORE_FIELD_GROUPS, []);
      if (ctx.query.get("observationId") && !ctx.query.get("traceId")) {
        throw new HttpError(400, "observationId needs traceId");
      }
      const matching = [...ctx.store.scores.values()].filter((s) => matchesFilters(s, ctx.query));
      const page = cursorPage(matching, (s) => [s.timestamp, s.id], ctx.query.get("cursor") ?? undefined, limit);
      return {
        body: {
          data: page.data.map((s) => scoreV3(s, ctx.store.project.id, groups)),
          meta: { limit, ...(page.cursor ? { cursor: page.cursor } : {}) },
        },
      };
    },
  },
  {
    method: "DELETE",
    path: "/api/public/scores/{scoreId}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const id = ctx.params.scoreId!;
      if (!ctx.store.scores.delete(id)) throw new HttpError(404, `Score ${id} not found`);
      return { status: 204 };
    },
  },
];
