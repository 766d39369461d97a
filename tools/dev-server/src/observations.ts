import {
  type GenAiFields,
  OBSERVATION_TYPES,
  readGenAiFields,
  usageRepeaters,
} from "../../../packages/core/src/genai-attributes.ts";
import { collectMetadata, isTrue, parseMaybeJson, str, type TraceContext, traceContext } from "./attribute-values.ts";
import type { AttributeValue } from "./otlp/span.ts";
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

const LEVELS: Record<string, string> = {
  DEBUG: "DEBUG",
  TRACE: "DEBUG",
  VERBOSE: "DEBUG",
  DEFAULT: "DEFAULT",
  INFO: "DEFAULT",
  LOG: "DEFAULT",
  NOTICE: "DEFAULT",
  OK: "DEFAULT",
  SUCCESS: "DEFAULT",
  WARNING: "WARNING",
  WARN: "WARNING",
  ERROR: "ERROR",
  FATAL: "ERROR",
  CRITICAL: "ERROR",
};

/** Nanoseconds since the epoch as an ISO timestamp (millisecond precision). */
export function isoFromNanos(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

/** `svc.observation.type` when the span declares a known one, else what the GenAI conventions say, upper case. */
function observationType(a: Record<string, AttributeValue>, genAi: GenAiFields): string {
  const declared = str(a["svc.observation.type"])?.toLowerCase();
  if (declared && OBSERVATION_TYPES.has(declared)) return declared.toUpperCase();
  return genAi.type.toUpperCase();
}

function environment(span: StoredSpan): string {
  const raw =
    str(span.attributes["svc.environment"]) ??
    str(span.resourceAttributes["svc.environment"]) ??
    str(span.resourceAttributes["deployment.environment.name"]) ??
    str(span.resourceAttributes["deployment.environment"]);
  const value = raw?.toLowerCase();
  return value && /^[a-z0-9_-]{1,40}$/.test(value) && !value.startsWith("svc") ? value : "default";
}

function numberMap(value: unknown): Record<string, number> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  return out;
}

/** Usage as `{input, output, total, ...}`; OpenAI usage shapes are mapped onto those names. */
function usageDetails(value: unknown): Record<string, number> {
  const usage = numberMap(value);
  const openAi = value as Record<string, unknown> | null;
  if (openAi && typeof openAi === "object" && ("prompt_tokens" in usage || "input_tokens" in usage)) {
    const input = usage.prompt_tokens ?? usage.input_tokens;
    const output = usage.completion_tokens ?? usage.output_tokens;
    const total = usage.total_tokens;
    return Object.fromEntries(
      Object.entries({ input, output, total }).filter((e): e is [string, number] => e[1] !== undefined),
    );
  }
  return usage;
}

function timestamp(value: AttributeValue | undefined): string | null {
  const text = str(value)?.replace(/^"|"$/g, "");
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** Turns a span into an observation, using the `svc.` attributes the way the server reads them. */
export function toObservation(span: StoredSpan, trace: TraceContext, projectId: string): Observation {
  const a = span.attributes;
  const genAi = readGenAiFields(span.name, a);
  const start = isoFromNanos(span.startTimeUnixNano);
  const end = span.endTimeUnixNano > 0n ? isoFromNanos(span.endTimeUnixNano) : null;
  const declaredLevel = LEVELS[str(a["svc.observation.level"])?.toUpperCase() ?? ""];
  const costDetails = numberMap(parseMaybeJson(a["svc.observation.cost_details"]));
  const completionStartTime = timestamp(a["svc.observation.completion_start_time"]);
  const promptVersion = Number(str(a["svc.observation.prompt.version"] ?? a["svc.prompt.version"]));
  const seconds = (from: string, to: string | null) => (to ? (Date.parse(to) - Date.parse(from)) / 1000 : null);
  return {
    id: span.spanId,
    traceId: span.traceId,
    startTime: start,
    endTime: end,
    projectId,
    parentObservationId: span.parentSpanId ?? null,
    type: observationType(a, genAi),
    modelId: null,
    inputPrice: null,
    outputPrice: null,
    totalPrice: null,
    name: span.name,
    level: declaredLevel ?? (span.statusCode === 2 ? "ERROR" : "DEFAULT"),
    statusMessage: str(a["svc.observation.status_message"]) ?? (span.statusMessage || null),
    version: str(a["svc.version"]) ?? str(span.resourceAttributes["service.version"]) ?? null,
    environment: environment(span),
    bookmarked: false,
    public: trace.public,
    userId: str(a["user.id"]) ?? str(a["svc.user.id"]) ?? trace.userId,
    sessionId: str(a["session.id"]) ?? str(a["svc.session.id"]) ?? trace.sessionId,
    isRootObservation: !span.parentSpanId || isTrue(a["svc.internal.is_app_root"]) || isTrue(a["svc.internal.as_root"]),
    completionStartTime,
    createdAt: span.receivedAt,
    updatedAt: span.receivedAt,
    input: str(a["svc.observation.input"]) ?? str(genAi.input as AttributeValue | undefined) ?? null,
    output: str(a["svc.observation.output"]) ?? str(genAi.output as AttributeValue | undefined) ?? null,
    metadata: {
      ...trace.metadata,
      ...collectMetadata(a, ["svc.observation.metadata", "svc.metadata"]),
    },
    providedModelName: str(a["svc.observation.model.name"]) ?? genAi.model ?? null,
    internalModelId: null,
    modelParameters: parseMaybeJson(a["svc.observation.model.parameters"]),
    usageDetails:
      a["svc.observation.usage_details"] !== undefined
        ? usageDetails(parseMaybeJson(a["svc.observation.usage_details"]))
        : (genAi.usage ?? {}),
    costDetails,
    totalCost: costDetails.total ?? (Object.keys(costDetails).length ? sum(Object.values(costDetails)) : null),
    usagePricingTierName: null,
    promptId: null,
    promptName: str(a["svc.observation.prompt.name"] ?? a["svc.prompt.name"]) ?? null,
    promptVersion: Number.isInteger(promptVersion) ? promptVersion : null,
    latency: seconds(start, end),
    timeToFirstToken: seconds(start, completionStartTime),
    tags: trace.tags,
    release: str(a["svc.release"]) ?? str(span.resourceAttributes["svc.release"]) ?? null,
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
