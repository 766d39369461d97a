import { type Attributes, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { encodeTraceRequestPieces } from "../../packages/core/src/otlp/otlp-json.ts";
import type { ExportItem } from "../../packages/core/src/otlp/otlp-request.ts";

// The OTLP/JSON encoder against OpenTelemetry's own JSON serializer, on spans of the real SDK: the text must be the
// same, whatever sizes the spans have and however the encoder groups them.

function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, exporter };
}

/** The span, seen with another resource: spans of a second service in the same request. */
function withResource(span: ReadableSpan, resource: object): ReadableSpan {
  return Object.create(span, { resource: { value: resource } }) as ReadableSpan;
}

/** Prose of `chars` characters; two-byte text (CJK and an emoji) when `wide`. */
function text(chars: number, seed: number, wide = false): string {
  const words = wide ? ["模型", "回答", "问题", "上下文", "🙂"] : ["model", "answer", "the", "question", "context"];
  let out = "";
  for (let i = seed; out.length < chars; i++) out += `${words[i % words.length]} `;
  return out.slice(0, chars);
}

function spansOf(count: number, sizeOf: (i: number) => number): ReadableSpan[] {
  const a = recorder();
  const b = recorder();
  for (let i = 0; i < count; i++) {
    const { provider } = i % 7 === 0 ? b : a;
    const tracer = provider.getTracer(i % 3 === 0 ? "svc-sdk" : "other-lib", i % 2 === 0 ? "6.0.0" : undefined);
    const attributes: Attributes = {
      "svc.observation.input": text(sizeOf(i), i, i % 5 === 0),
      "svc.observation.level": "DEFAULT",
      count: i,
      ratio: i / 7,
      flag: i % 2 === 0,
      list: ["a", `b${i}`],
    };
    const span = tracer.startSpan(`op-${i}`, { kind: i % 4 === 0 ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes });
    if (i % 11 === 0) span.addEvent("retry", { attempt: 2, reason: text(40, i, true) });
    if (i % 13 === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'boom \u0000\n"quoted"' });
    span.end();
  }
  const billing = { attributes: { "service.name": "billing" }, schemaUrl: "https://r.example/1" };
  return [...a.exporter.getFinishedSpans(), ...b.exporter.getFinishedSpans().map((s) => withResource(s, billing))];
}

function encode(spans: ReadableSpan[]): string[] {
  const items: ExportItem[] = spans.map((span) => ({ span, attributes: span.attributes }));
  return [...encodeTraceRequestPieces(items)];
}

describe("OTLP/JSON encoding", () => {
  it.each([
    ["small spans", 2_000, () => 20],
    ["spans of about 1 KB", 600, (i: number) => 900 + (i % 200)],
    ["spans of mixed sizes, some larger than a piece", 300, (i: number) => (i % 50 === 0 ? 120_000 : 40 + i * 13)],
  ])("writes the same text as OpenTelemetry's JSON serializer: %s", (_name, count, sizeOf) => {
    const spans = spansOf(count, sizeOf);
    const pieces = encode(spans);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));
  });

  it("keeps its pieces near 48K characters, unless one span alone is longer", () => {
    const pieces = encode(spansOf(3_000, (i) => 200 + (i % 900)));
    const lengths = pieces.map((piece) => piece.length);
    expect(Math.max(...lengths)).toBeLessThan(96 * 1024);
    // Every piece but the last holds at least half of one.
    expect(Math.min(...lengths.slice(0, -1))).toBeGreaterThanOrEqual(24 * 1024);
  });
});
