import { HttpError } from "./http.ts";
import type { Observation } from "./observations.ts";

/** One condition of the `filter` query parameter of the observations read route. */
interface Condition {
  type: string;
  column: string;
  operator: string;
  value?: unknown;
  key?: string;
}

const COLUMNS: Record<string, (o: Observation) => unknown> = {
  id: (o) => o.id,
  type: (o) => o.type,
  name: (o) => o.name,
  traceId: (o) => o.traceId,
  parentObservationId: (o) => o.parentObservationId,
  startTime: (o) => o.startTime,
  endTime: (o) => o.endTime,
  environment: (o) => o.environment,
  level: (o) => o.level,
  statusMessage: (o) => o.statusMessage,
  version: (o) => o.version,
  userId: (o) => o.userId,
  sessionId: (o) => o.sessionId,
  isRootObservation: (o) => o.isRootObservation,
  traceName: (o) => o.traceName,
  traceTags: (o) => o.tags,
  tags: (o) => o.tags,
  latency: (o) => o.latency,
  timeToFirstToken: (o) => o.timeToFirstToken,
  inputTokens: (o) => o.usageDetails.input,
  outputTokens: (o) => o.usageDetails.output,
  totalTokens: (o) => o.usageDetails.total,
  tokens: (o) => o.usageDetails.total,
  inputCost: (o) => o.costDetails.input,
  outputCost: (o) => o.costDetails.output,
  totalCost: (o) => o.totalCost,
  model: (o) => o.providedModelName,
  providedModelName: (o) => o.providedModelName,
  promptName: (o) => o.promptName,
  promptVersion: (o) => o.promptVersion,
  input: (o) => o.input,
  output: (o) => o.output,
  metadata: (o) => o.metadata,
};

function dotted(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function compare(actual: unknown, operator: string, expected: unknown, where: string): boolean {
  switch (operator) {
    case "=":
      return actual === expected || (actual !== null && actual !== undefined && String(actual) === String(expected));
    case "<>":
    case "!=":
      return !compare(actual, "=", expected, where);
    case ">":
    case "<":
    case ">=":
    case "<=": {
      const a = typeof actual === "string" ? Date.parse(actual) : Number(actual);
      const e =
        typeof expected === "string" && Number.isNaN(Number(expected)) ? Date.parse(expected) : Number(expected);
      if (actual === null || actual === undefined || Number.isNaN(a) || Number.isNaN(e)) return false;
      return operator === ">" ? a > e : operator === "<" ? a < e : operator === ">=" ? a >= e : a <= e;
    }
    case "contains":
    case "matches":
      return typeof actual === "string" && actual.toLowerCase().includes(String(expected).toLowerCase());
    case "does not contain":
      return !(typeof actual === "string" && actual.includes(String(expected)));
    case "starts with":
      return typeof actual === "string" && actual.startsWith(String(expected));
    case "ends with":
      return typeof actual === "string" && actual.endsWith(String(expected));
    case "any of":
    case "none of":
    case "all of": {
      if (!Array.isArray(expected)) throw new HttpError(400, `${where}: value must be an array for "${operator}"`);
      const values = (Array.isArray(actual) ? actual : [actual]).map(String);
      const wanted = expected.map(String);
      if (operator === "all of") return wanted.every((w) => values.includes(w));
      const any = wanted.some((w) => values.includes(w));
      return operator === "any of" ? any : !any;
    }
    case "is null":
      return actual === null || actual === undefined;
    case "is not null":
      return actual !== null && actual !== undefined;
    default:
      throw new HttpError(400, `${where}: unknown operator "${operator}"`);
  }
}

/** Parses the `filter` query parameter into a predicate; a malformed filter is a 400 that says what is wrong. */
export function parseObservationFilter(raw: string): (o: Observation) => boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError(400, "Query parameter filter must be a JSON array of conditions");
  }
  if (!Array.isArray(parsed)) throw new HttpError(400, "Query parameter filter must be a JSON array of conditions");
  const conditions = parsed.map((c, i) => {
    const where = `filter[${i}]`;
    if (!c || typeof c !== "object") throw new HttpError(400, `${where} must be an object`);
    const cond = c as Condition;
    if (typeof cond.column !== "string" || !(cond.column in COLUMNS)) {
      throw new HttpError(400, `${where}: unknown column ${JSON.stringify(cond.column)}`);
    }
    if (typeof cond.operator !== "string") throw new HttpError(400, `${where}: operator must be a string`);
    if (cond.type === "stringObject" || cond.type === "numberObject" || cond.type === "categoryOptions") {
      if (cond.column === "metadata" && typeof cond.key !== "string") {
        throw new HttpError(400, `${where}: key is required for a ${cond.type} filter on metadata`);
      }
    }
    return { ...cond, where };
  });
  return (o) =>
    conditions.every((c) => {
      let actual = COLUMNS[c.column]!(o);
      if (c.key !== undefined && c.column === "metadata") actual = dotted(actual, c.key);
      return compare(actual, c.operator, c.value, c.where);
    });
}
