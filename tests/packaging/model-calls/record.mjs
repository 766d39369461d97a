// Loaded with `--import` before a recipe by the model-call matrix (tests/packaging/model-calls.test.ts): records
// every span that reaches a SvcSpanProcessor (ES module and CommonJS copies), before its export filter, and writes
// them as one OTLP/JSON request to MODEL_CALLS_RECORD when the process exits. Not part of any recipe.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(`${process.cwd()}/`);
const spans = [];
const patched = new Set();
for (const load of [() => import("@svc/otel"), async () => require("@svc/otel")]) {
  const { SvcSpanProcessor } = await load();
  if (patched.has(SvcSpanProcessor)) continue;
  patched.add(SvcSpanProcessor);
  const onEnd = SvcSpanProcessor.prototype.onEnd;
  SvcSpanProcessor.prototype.onEnd = function recordingOnEnd(span) {
    spans.push(toOtlp(span));
    return onEnd.call(this, span);
  };
}

function anyValue(value) {
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: String(value) };
}

function nanos([seconds, fraction]) {
  return String(BigInt(seconds) * 1_000_000_000n + BigInt(fraction));
}

function toOtlp(span) {
  const scope = span.instrumentationScope ?? span.instrumentationLibrary ?? {};
  const parent = span.parentSpanContext?.spanId ?? span.parentSpanId;
  return {
    scope: { name: scope.name ?? "", version: scope.version },
    span: {
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      ...(parent ? { parentSpanId: parent } : {}),
      name: span.name,
      kind: span.kind + 1,
      startTimeUnixNano: nanos(span.startTime),
      endTimeUnixNano: nanos(span.endTime),
      attributes: Object.entries(span.attributes)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([key, v]) => ({ key, value: anyValue(v) })),
      status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
    },
  };
}

process.on("exit", () => {
  const scopes = new Map();
  for (const { scope, span } of spans) {
    const key = `${scope.name}@${scope.version ?? ""}`;
    if (!scopes.has(key)) scopes.set(key, { scope, spans: [] });
    scopes.get(key).spans.push(span);
  }
  const request = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [...scopes.values()] }] };
  if (process.env.MODEL_CALLS_RECORD)
    writeFileSync(process.env.MODEL_CALLS_RECORD, `${JSON.stringify(request, null, 1)}\n`);
});
