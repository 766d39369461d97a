import { attributeText as str } from "../../../packages/core/src/attributes.ts";
import { ownTracingRepeaters, usageRepeaters } from "../../../packages/core/src/genai-attributes.ts";
import { readObservationFields } from "../../../packages/core/src/read-observation-attributes.ts";
import { type TraceContext, traceContext } from "./attribute-values.ts";
import type { DevStore, StoredSpan } from "./store.ts";

/** An observation as `GET /api/public/v2/observations` returns it, with every field group filled. */
export interface Observation {
  id: string;
  traceId: string;
  startTime: string;
  endTime: string | null;
  projectId: string;
  parentObservationId: string | null;
  type: string;
  modelId: null;
  inputPrice: null;
  outputPrice: null;
  totalPrice: null;
  name: string | null;
  level: string;
  statusMessage: string | null;
  version: string | null;
  environment: string;
  bookmarked: boolean;
  public: boolean;
  userId: string | null;
  sessionId: string | null;
  isRootObservation: boolean;
  completionStartTime: string | null;
  createdAt: string;
  updatedAt: string;
  input: unknown;
  output: unknown;
  metadata: Record<string, unknown>;
  providedModelName: string | null;
  internalModelId: null;
  modelParameters: unknown;
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  totalCost: number | null;
  usagePricingTierName: null;
  promptId: null;
  promptName: string | null;
  promptVersion: number | null;
  latency: number | null;
  timeToFirstToken: number | null;
  tags: string[];
  release: string | null;
  traceName: string | null;
}

/** The field groups of the observations read route and the fields each adds. */
export const OBSERVATION_FIELD_GROUPS: Record<string, (keyof Observation)[]> = {
  core: ["id", "traceId", "startTime", "endTime", "projectId", "parentObservationId", "type"],
  basic: [
    "name",
    "level",
    "statusMessage",
    "version",
    "environment",
    "bookmarked",
    "public",
    "userId",
    "sessionId",
    "isRootObservation",
  ],
  time: ["completionStartTime", "createdAt", "updatedAt"],
  io: ["input", "output"],
  metadata: ["metadata"],
  model: [
    "providedModelName",
    "internalModelId",
    "modelParameters",
    "modelId",
    "inputPrice",
    "outputPrice",
    "totalPrice",
  ],
  usage: ["usageDetails", "costDetails", "totalCost", "usagePricingTierName"],
  prompt: ["promptId", "promptName", "promptVersion"],
  metrics: ["latency", "timeToFirstToken"],
  trace_context: ["tags", "release", "traceName"],
};

/** Nanoseconds since the epoch as an ISO timestamp (millisecond precision). */
export function isoFromNanos(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

/** The environment as the server stores it: lower case, else `default` when missing or not a valid name. */
function environment(raw: string | undefined): string {
  const value = raw?.toLowerCase();
  return value && /^[a-z0-9_-]{1,40}$/.test(value) && !value.startsWith("svc") ? value : "default";
}

/** Turns a span into an observation, using the `svc.` attributes the way the server reads them. */
export function toObservation(span: StoredSpan, trace: TraceContext, projectId: string): Observation {
  const fields = readObservationFields(
    {
      name: span.name,
      statusCode: span.statusCode,
      statusMessage: span.statusMessage,
      resource: span.resourceAttributes,
      scope: span.scopeName,
    },
    span.attributes,
  );
  const start = isoFromNanos(span.startTimeUnixNano);
  const end = span.endTimeUnixNano > 0n ? isoFromNanos(span.endTimeUnixNano) : null;
  const costDetails = fields.cost ?? {};
  const completionStartTime = fields.completionStartTime ?? null;
  const seconds = (from: string, to: string | null) => (to ? (Date.parse(to) - Date.parse(from)) / 1000 : null);
  return {
    id: span.spanId,
    traceId: span.traceId,
    startTime: start,
    endTime: end,
    projectId,
    parentObservationId: span.parentSpanId ?? null,
    type: fields.type.toUpperCase(),
    modelId: null,
    inputPrice: null,
    outputPrice: null,
    totalPrice: null,
    name: span.name,
    level: fields.level,
    statusMessage: fields.statusMessage ?? null,
    version: fields.version ?? null,
    environment: environment(fields.environment),
    bookmarked: false,
    public: trace.public,
    userId: fields.trace.userId ?? trace.userId,
    sessionId: fields.trace.sessionId ?? trace.sessionId,
    isRootObservation: !span.parentSpanId || fields.asRoot,
    completionStartTime,
    createdAt: span.receivedAt,
    updatedAt: span.receivedAt,
    input: str(fields.input) ?? null,
    output: str(fields.output) ?? null,
    metadata: { ...trace.metadata, ...fields.metadata },
    providedModelName: fields.model ?? null,
    internalModelId: null,
    modelParameters: fields.modelParameters ?? null,
    usageDetails: fields.usage ?? {},
    costDetails,
    totalCost: costDetails.total ?? (Object.keys(costDetails).length ? sum(Object.values(costDetails)) : null),
    usagePricingTierName: null,
    promptId: null,
    promptName: fields.promptName ?? null,
    promptVersion: fields.promptVersion ?? null,
    latency: seconds(start, end),
    timeToFirstToken: seconds(start, completionStartTime),
    tags: trace.tags,
    release: fields.release ?? null,
    traceName: trace.name,
  };
}

function sum(values: number[]): number {
  return values.reduce((total, v) => total + v, 0);
}

/** Every stored span as an observation, trace context included. */
export function allObservations(store: DevStore): Observation[] {
  const byTrace = new Map<string, StoredSpan[]>();
  for (const span of store.spans.values()) {
    const list = byTrace.get(span.traceId) ?? [];
    list.push(span);
    byTrace.set(span.traceId, list);
  }
  const out: Observation[] = [];
  for (const spans of byTrace.values()) {
    const trace = traceContext(spans);
    const observations = spans.map((span) => toObservation(span, trace, store.project.id));
    // Usage an agent span repeats from its model calls is counted once, on the model calls.
    const repeaters = usageRepeaters(
      observations.map((o) => ({
        id: o.id,
        parentId: o.parentObservationId,
        type: o.type,
        hasUsage: Object.keys(o.usageDetails).length > 0,
      })),
    );
    for (const observation of observations) if (repeaters.has(observation.id)) observation.usageDetails = {};
    out.push(...observations);
  }
  // A call that a provider SDK's own tracing records too is counted on the SDK's span, in whichever trace each is.
  const spansById = new Map([...store.spans.values()].map((span) => [span.spanId, span]));
  const repeaters = ownTracingRepeaters(
    out.map((o) => ({
      id: o.id,
      scope: spansById.get(o.id)?.scopeName ?? "",
      hasUsage: Object.keys(o.usageDetails).length > 0,
      source: JSON.stringify(spansById.get(o.id)?.resourceAttributes),
    })),
  );
  for (const observation of out) if (repeaters.has(observation.id)) observation.usageDetails = {};
  return out;
}

/** Keeps only the fields of the requested groups; string metadata values are cut at 200 characters unless expanded. */
export function pickFields(obs: Observation, groups: string[], expandMetadata: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const group of groups) for (const key of OBSERVATION_FIELD_GROUPS[group] ?? []) out[key] = obs[key];
  if (out.metadata) {
    const metadata: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obs.metadata)) {
      metadata[k] = typeof v === "string" && v.length > 200 && !expandMetadata.has(k) ? v.slice(0, 200) : v;
    }
    out.metadata = metadata;
  }
  return out;
}
