import { SvcOtelSpanAttributes as A, readGenAiFields, usageRepeaters } from "@svc/core";

/** Trace attributes as a span carries them (`propagateAttributes`), or as a trace gathers them from its spans. */
export interface TestTraceAttributes {
  /** `svc.trace.name`. */
  name: string | undefined;
  /** `user.id`. */
  userId: string | undefined;
  /** `session.id`. */
  sessionId: string | undefined;
  /** `svc.trace.tags`. */
  tags: string[];
  /** `svc.trace.metadata`, one key per top-level key. */
  metadata: Record<string, unknown>;
  /** Whether the trace was made public (`setTraceAsPublic`). */
  public: boolean;
}

/** An observation as the server received it: one exported span, read the way the server reads its attributes. */
export interface TestObservation {
  /** The span id. */
  id: string;
  /** The trace id. */
  traceId: string;
  /** The parent's id; undefined for a root span. */
  parentId: string | undefined;
  /** The span name. */
  name: string;
  /**
   * `svc.observation.type` as sent (`span`, `generation`, `tool`...); for a span without it, the type its GenAI
   * attributes give, as the server reads them (`gen_ai.operation.name` `chat` is a `generation`); else `span`.
   */
  type: string;
  /** The input: an object or array parsed back from its JSON text; any other value as the text sent. */
  input: unknown;
  /** The output, read as the input is. */
  output: unknown;
  /** `svc.observation.metadata`, one key per top-level key, objects parsed back from their JSON text. */
  metadata: Record<string, unknown>;
  /** `svc.observation.model.name` (generations and embeddings), else `gen_ai.response.model` or `gen_ai.request.model`. */
  model: string | undefined;
  /** `svc.observation.model.parameters`, parsed. */
  modelParameters: unknown;
  /**
   * `svc.observation.usage_details`: token counts by kind (`input`, `output`, `total`...); else `gen_ai.usage.*`.
   * Undefined on an agent span whose model calls below carry the same tokens, as the server counts them once.
   */
  usage: Record<string, number> | undefined;
  /** `svc.observation.cost_details`: costs by kind. */
  cost: Record<string, number> | undefined;
  /** `svc.observation.level`; else `ERROR` for a span whose status is an error, as the server reads it, else `DEFAULT`. */
  level: string;
  /** `svc.observation.status_message`, else the span status message. */
  statusMessage: string | undefined;
  /** The OpenTelemetry status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** `svc.environment`. */
  environment: string | undefined;
  /** `svc.release`. */
  release: string | undefined;
  /** `svc.version`. */
  version: string | undefined;
  /** The prompt linked to a generation. */
  prompt: { name: string; version: number | undefined } | undefined;
  /** When a streamed generation's first token arrived (ISO 8601). */
  completionStartTime: string | undefined;
  /** When the span started (ISO 8601). */
  startTime: string;
  /** When the span ended (ISO 8601). */
  endTime: string;
  /** The trace attributes this span carried. */
  trace: TestTraceAttributes;
  /** The instrumentation scope (`svc-sdk` for svc observations). */
  scope: string;
  /** Every exported attribute, as sent. */
  attributes: Record<string, unknown>;
  /** Child observations, in start order. */
  children: TestObservation[];
}

/** A trace: its attributes gathered from every span, the root observation's input and output, and its tree. */
export interface TestTrace extends TestTraceAttributes {
  /** The trace id. */
  id: string;
  /** The root observation's input (or `svc.trace.input`), which the server shows as the trace's. */
  input: unknown;
  /** The root observation's output (or `svc.trace.output`). */
  output: unknown;
  /** Observations without a parent in the trace, in start order, each with its children. */
  roots: TestObservation[];
}

type AnyValue = Record<string, unknown>;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number; message?: string };
}

interface OtlpRequest {
  resourceSpans?: { scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

/** The observations of one OTLP/JSON export request, without children yet. */
export function observationsOf(request: unknown): TestObservation[] {
  const out: TestObservation[] = [];
  for (const resource of (request as OtlpRequest).resourceSpans ?? [])
    for (const scoped of resource.scopeSpans ?? [])
      for (const span of scoped.spans ?? []) out.push(toObservation(span, scoped.scope?.name ?? ""));
  return out;
}

/** Start times in nanoseconds, for the order: ISO times have only milliseconds. */
const STARTED = new WeakMap<TestObservation, bigint>();

function toObservation(span: OtlpSpan, scope: string): TestObservation {
  const a: Record<string, unknown> = {};
  for (const { key, value } of span.attributes ?? []) a[key] = fromAnyValue(value);
  const genAi = readGenAiFields(span.name, a);
  const statusCode = span.status?.code ?? 0;
  const promptName = text(a[A.OBSERVATION_PROMPT_NAME]);
  const promptVersion = Number(a[A.OBSERVATION_PROMPT_VERSION]);
  const observation: TestObservation = {
    id: span.spanId,
    traceId: span.traceId,
    parentId: span.parentSpanId || undefined,
    name: span.name,
    type: text(a[A.OBSERVATION_TYPE]) ?? genAi.type,
    input: parsed(a[A.OBSERVATION_INPUT] ?? genAi.input),
    output: parsed(a[A.OBSERVATION_OUTPUT] ?? genAi.output),
    metadata: metadataOf(a, A.OBSERVATION_METADATA),
    model: text(a[A.OBSERVATION_MODEL]) ?? genAi.model,
    modelParameters: parsed(a[A.OBSERVATION_MODEL_PARAMETERS]),
    usage: a[A.OBSERVATION_USAGE_DETAILS] !== undefined ? numbers(parsed(a[A.OBSERVATION_USAGE_DETAILS])) : genAi.usage,
    cost: numbers(parsed(a[A.OBSERVATION_COST_DETAILS])),
    level: text(a[A.OBSERVATION_LEVEL]) ?? (statusCode === 2 ? "ERROR" : "DEFAULT"),
    statusMessage: text(a[A.OBSERVATION_STATUS_MESSAGE]) ?? (span.status?.message || undefined),
    statusCode,
    environment: text(a[A.ENVIRONMENT]),
    release: text(a[A.RELEASE]),
    version: text(a[A.VERSION]),
    prompt: promptName
      ? { name: promptName, version: Number.isInteger(promptVersion) ? promptVersion : undefined }
      : undefined,
    completionStartTime: text(a[A.OBSERVATION_COMPLETION_START_TIME])?.replace(/^"|"$/g, ""),
    startTime: isoOf(span.startTimeUnixNano),
    endTime: isoOf(span.endTimeUnixNano),
    trace: {
      name: text(a[A.TRACE_NAME]),
      userId: text(a[A.TRACE_USER_ID]),
      sessionId: text(a[A.TRACE_SESSION_ID]),
      tags: tagsOf(a[A.TRACE_TAGS]),
      metadata: metadataOf(a, A.TRACE_METADATA),
      public: a[A.TRACE_PUBLIC] === true || a[A.TRACE_PUBLIC] === "true",
    },
    scope,
    attributes: a,
    children: [],
  };
  STARTED.set(observation, BigInt(span.startTimeUnixNano));
  return observation;
}

/** Observations in start order (to the nanosecond), each linked to its children, and grouped into traces. */
export function treeOf(observations: readonly TestObservation[]): { ordered: TestObservation[]; traces: TestTrace[] } {
  const byId = new Map<string, TestObservation>();
  for (const observation of observations) {
    observation.children = [];
    byId.set(`${observation.traceId}:${observation.id}`, observation);
  }
  const depth = (o: TestObservation): number => {
    let count = 0;
    for (let p = o; p.parentId && count < observations.length; count++) {
      const parent = byId.get(`${p.traceId}:${p.parentId}`);
      if (!parent) break;
      p = parent;
    }
    return count;
  };
  // Times may be equal (a span started in the same millisecond as its parent): a parent comes before its children.
  const key = new Map(observations.map((o) => [o, { started: STARTED.get(o) ?? 0n, depth: depth(o) }]));
  const ordered = [...observations].sort((x, y) => {
    const a = key.get(x) as { started: bigint; depth: number };
    const b = key.get(y) as { started: bigint; depth: number };
    return a.started !== b.started ? (a.started < b.started ? -1 : 1) : a.depth - b.depth;
  });
  const traces = new Map<string, TestTrace>();
  for (const observation of ordered) {
    const parent = observation.parentId && byId.get(`${observation.traceId}:${observation.parentId}`);
    if (parent) parent.children.push(observation);
    let trace = traces.get(observation.traceId);
    if (trace === undefined) {
      trace = {
        id: observation.traceId,
        ...observation.trace,
        tags: [],
        metadata: {},
        input: undefined,
        output: undefined,
        roots: [],
      };
      traces.set(observation.traceId, trace);
    }
    mergeTraceAttributes(trace, observation);
    if (!parent) trace.roots.push(observation);
  }
  const byTrace = new Map<string, TestObservation[]>();
  for (const observation of ordered) {
    const list = byTrace.get(observation.traceId);
    if (list) list.push(observation);
    else byTrace.set(observation.traceId, [observation]);
  }
  for (const trace of traces.values()) {
    const inTrace = byTrace.get(trace.id) ?? [];
    const repeaters = usageRepeaters(
      inTrace.map((o) => ({ id: o.id, parentId: o.parentId, type: o.type, hasUsage: o.usage !== undefined })),
    );
    for (const observation of inTrace) if (repeaters.has(observation.id)) observation.usage = undefined;
    const root = trace.roots[0];
    trace.input = root?.attributes[A.TRACE_INPUT] !== undefined ? parsed(root.attributes[A.TRACE_INPUT]) : root?.input;
    trace.output =
      root?.attributes[A.TRACE_OUTPUT] !== undefined ? parsed(root.attributes[A.TRACE_OUTPUT]) : root?.output;
  }
  return { ordered, traces: [...traces.values()] };
}

function mergeTraceAttributes(trace: TestTrace, observation: TestObservation): void {
  const own = observation.trace;
  trace.name ??= own.name;
  trace.userId ??= own.userId;
  trace.sessionId ??= own.sessionId;
  for (const tag of own.tags) if (!trace.tags.includes(tag)) trace.tags.push(tag);
  Object.assign(trace.metadata, own.metadata);
  trace.public ||= own.public;
}

function fromAnyValue(value: AnyValue | undefined): unknown {
  if (value === undefined || value === null) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("bytesValue" in value) return value.bytesValue;
  if ("arrayValue" in value)
    return ((value.arrayValue as { values?: AnyValue[] }).values ?? []).map((v) => fromAnyValue(v));
  if ("kvlistValue" in value) {
    const out: Record<string, unknown> = {};
    for (const { key, value: v } of (value.kvlistValue as { values?: { key: string; value: AnyValue }[] }).values ?? [])
      out[key] = fromAnyValue(v);
    return out;
  }
  return undefined;
}

/**
 * An object or array parsed back from its JSON text; anything else as it is: a string is written as it is, so the text
 * `42` may be the string "42" or the number, and stays text.
 */
function parsed(value: unknown): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : value === undefined ? undefined : String(value);
}

function numbers(value: unknown): Record<string, number> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === "number") out[key] = v;
  return out;
}

function tagsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === "string" && value !== "" ? value.split(",") : [];
}

/** Metadata from the per-key attributes `prefix.<key>`; a dotted path under an object key repeats that object. */
function metadataOf(a: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const whole = parsed(a[prefix]);
  if (isObject(whole)) Object.assign(out, whole);
  const keys = Object.keys(a)
    .filter((key) => key.startsWith(`${prefix}.`))
    .map((key) => key.slice(prefix.length + 1))
    .sort((x, y) => x.split(".").length - y.split(".").length);
  for (const key of keys) {
    const value = a[`${prefix}.${key}`];
    const root = key.split(".")[0] as string;
    if (root !== key && isObject(out[root])) continue;
    out[key] = parsed(value);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isoOf(nanos: string | number): string {
  return new Date(Number(BigInt(nanos) / 1_000_000n)).toISOString();
}
