import {
  type ObservationFields,
  ownTracingRepeaters,
  parseJsonText,
  readObservationFields,
  readTraceFields,
  type TraceFields,
  usageRepeaters,
} from "@svc/core";

/** Trace attributes as a span carries them (`propagateAttributes`), or as a trace gathers them from its spans. */
export type TestTraceAttributes = Omit<TraceFields, "input" | "output">;

/**
 * An observation as the server received it: one exported span, its attributes read as the server reads them (input
 * and output parsed back from their JSON text; `usage` left out on a span whose model calls below carry the same
 * tokens, as they are counted once).
 */
export interface TestObservation extends Omit<ObservationFields, "promptName" | "promptVersion" | "asRoot" | "trace"> {
  /** The span id. */
  id: string;
  /** The trace id. */
  traceId: string;
  /** The parent's id; undefined for a root span. */
  parentId: string | undefined;
  /** The span name. */
  name: string;
  /** The OpenTelemetry status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The prompt linked to a generation. */
  prompt: { name: string; version: number | undefined } | undefined;
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
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of span.attributes ?? []) attributes[key] = fromAnyValue(value);
  const statusCode = span.status?.code ?? 0;
  const facts = { name: span.name, statusCode, statusMessage: span.status?.message, scope };
  const { promptName, promptVersion, asRoot: _, trace, ...fields } = readObservationFields(facts, attributes);
  const { input: _input, output: _output, ...traceAttributes } = trace;
  const observation: TestObservation = {
    id: span.spanId,
    traceId: span.traceId,
    parentId: span.parentSpanId || undefined,
    name: span.name,
    ...fields,
    input: parseJsonText(fields.input),
    output: parseJsonText(fields.output),
    statusCode,
    prompt: promptName ? { name: promptName, version: promptVersion } : undefined,
    startTime: isoOf(span.startTimeUnixNano),
    endTime: isoOf(span.endTimeUnixNano),
    trace: traceAttributes,
    scope,
    attributes,
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
  const parentOf = (o: TestObservation) => (o.parentId ? byId.get(`${o.traceId}:${o.parentId}`) : undefined);
  const depth = (o: TestObservation): number => {
    let count = 0;
    for (let p = parentOf(o); p && count < observations.length; p = parentOf(p)) count++;
    return count;
  };
  // Times may be equal (a span started in the same millisecond as its parent): a parent comes before its children.
  const ranked = observations.map((o) => ({ o, started: STARTED.get(o) ?? 0n, depth: depth(o) }));
  ranked.sort((a, b) => (a.started !== b.started ? (a.started < b.started ? -1 : 1) : a.depth - b.depth));
  const ordered = ranked.map(({ o }) => o);
  const traces = new Map<string, { trace: TestTrace; members: TestObservation[] }>();
  for (const observation of ordered) {
    const parent = parentOf(observation);
    if (parent) parent.children.push(observation);
    let entry = traces.get(observation.traceId);
    if (entry === undefined) {
      const trace = { id: observation.traceId, ...observation.trace, tags: [], metadata: {}, roots: [] };
      entry = { trace: { ...trace, input: undefined, output: undefined }, members: [] };
      traces.set(observation.traceId, entry);
    }
    entry.members.push(observation);
    const { trace } = entry;
    const own = observation.trace;
    trace.name ??= own.name;
    trace.userId ??= own.userId;
    trace.sessionId ??= own.sessionId;
    for (const tag of own.tags) if (!trace.tags.includes(tag)) trace.tags.push(tag);
    Object.assign(trace.metadata, own.metadata);
    trace.public ||= own.public;
    if (!parent) trace.roots.push(observation);
  }
  for (const { trace, members } of traces.values()) {
    const nodes = members.map((o) => ({
      id: o.id,
      parentId: o.parentId,
      type: o.type,
      hasUsage: o.usage !== undefined,
    }));
    const repeaters = usageRepeaters(nodes);
    for (const observation of members) if (repeaters.has(observation.id)) observation.usage = undefined;
    const root = trace.roots[0];
    const own = root && readTraceFields(root.attributes);
    trace.input = own?.input !== undefined ? parseJsonText(own.input) : root?.input;
    trace.output = own?.output !== undefined ? parseJsonText(own.output) : root?.output;
  }
  // A call that a provider SDK's own tracing records too is counted on the SDK's span, in whichever trace each is.
  const ownRepeaters = ownTracingRepeaters(
    ordered.map((o) => ({ id: o.id, scope: o.scope, hasUsage: o.usage !== undefined })),
  );
  for (const observation of ordered) if (ownRepeaters.has(observation.id)) observation.usage = undefined;
  return { ordered, traces: [...traces.values()].map((entry) => entry.trace) };
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

function isoOf(nanos: string | number): string {
  return new Date(Number(BigInt(nanos) / 1_000_000n)).toISOString();
}
