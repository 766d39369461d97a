import { readTraceFields } from "../../../packages/core/src/read-observation-attributes.ts";
import type { StoredSpan } from "./store.ts";

/** Trace-level values, gathered from every span of a trace. */
export interface TraceContext {
  name: string | null;
  userId: string | null;
  sessionId: string | null;
  tags: string[];
  public: boolean;
  metadata: Record<string, unknown>;
}

/** The trace attributes of a trace's spans, the first span (by start time) that names one winning. */
export function traceContext(spans: StoredSpan[]): TraceContext {
  const ordered = [...spans].sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
  const fields = ordered.map((span) => readTraceFields(span.attributes));
  const root = ordered.find((s) => !s.parentSpanId) ?? ordered[0];
  const tags = new Set<string>();
  const metadata: Record<string, unknown> = {};
  for (const own of fields) {
    for (const tag of own.tags) tags.add(tag);
    Object.assign(metadata, own.metadata);
  }
  return {
    name: fields.find((f) => f.name)?.name ?? root?.name ?? null,
    userId: fields.find((f) => f.userId)?.userId ?? null,
    sessionId: fields.find((f) => f.sessionId)?.sessionId ?? null,
    tags: [...tags],
    public: fields.some((f) => f.public),
    metadata,
  };
}
