import type { AttributeValue } from "./otlp/span.ts";
import type { StoredSpan } from "./store.ts";

// How the server reads attribute values: text, JSON text, flags, metadata and trace-level values.

export function str(value: AttributeValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Parses JSON text; a value that is not JSON text is returned as it is. */
export function parseMaybeJson(value: AttributeValue | undefined): unknown {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function isTrue(value: AttributeValue | undefined): boolean {
  return value === true || value === "true";
}

/** Metadata from a JSON-object attribute `prefix` and per-key attributes `prefix.<key>`. */
export function collectMetadata(attributes: Record<string, AttributeValue>, prefixes: string[]) {
  const out: Record<string, unknown> = {};
  for (const prefix of prefixes) {
    const whole = parseMaybeJson(attributes[prefix]);
    if (whole && typeof whole === "object" && !Array.isArray(whole)) Object.assign(out, whole);
    const perKey = Object.entries(attributes)
      .filter(([key]) => key.startsWith(`${prefix}.`))
      .map(([key, value]) => [key.slice(prefix.length + 1), value] as const)
      .sort(([a], [b]) => a.split(".").length - b.split(".").length);
    for (const [key, value] of perKey) {
      // Nested objects arrive whole as JSON text and again leaf by leaf (`key.a.b`); the leaves repeat the object.
      const root = key.split(".")[0]!;
      if (root !== key && isObjectValue(out[root])) continue;
      // Objects and arrays arrive as JSON text; parse them so nested keys can be filtered by dotted path.
      out[key] = typeof value === "string" && /^\s*[[{]/.test(value) ? parseMaybeJson(value) : value;
    }
  }
  return out;
}

function isObjectValue(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Trace-level values, gathered from every span of a trace. */
export interface TraceContext {
  name: string | null;
  userId: string | null;
  sessionId: string | null;
  tags: string[];
  public: boolean;
  metadata: Record<string, unknown>;
}

function tagsOf(value: AttributeValue | undefined): string[] {
  if (Array.isArray(value)) return value.map((v) => String(v));
  if (typeof value !== "string" || value === "") return [];
  const parsed = parseMaybeJson(value);
  if (Array.isArray(parsed)) return parsed.map(String);
  return value.split(",").map((t) => t.trim());
}

export function traceContext(spans: StoredSpan[]): TraceContext {
  const ordered = [...spans].sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
  const first = (keys: string[]) => {
    for (const span of ordered) {
      for (const key of keys) {
        const v = str(span.attributes[key]);
        if (v) return v;
      }
    }
    return null;
  };
  const root = ordered.find((s) => !s.parentSpanId) ?? ordered[0];
  const tags = new Set<string>();
  const metadata: Record<string, unknown> = {};
  for (const span of ordered) {
    for (const key of ["svc.trace.tags", "svc.tags"]) for (const t of tagsOf(span.attributes[key])) tags.add(t);
    Object.assign(metadata, collectMetadata(span.attributes, ["svc.trace.metadata", "svc.metadata"]));
  }
  return {
    name: first(["svc.trace.name"]) ?? root?.name ?? null,
    userId: first(["user.id", "svc.user.id"]),
    sessionId: first(["session.id", "svc.session.id", "gen_ai.conversation.id"]),
    tags: [...tags],
    public: ordered.some((s) => isTrue(s.attributes["svc.trace.public"]) || isTrue(s.attributes["svc.public"])),
    metadata,
  };
}
