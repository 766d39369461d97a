import type { Attributes, HrTime, Link, SpanContext, TraceState } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@svc/otel";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeTraceRequestProtobuf } from "../../packages/core/src/otlp/otlp-protobuf.ts";
import { utf8Length } from "../../packages/core/src/otlp/protobuf-writer.ts";
import { decodeTraceRequest, spansOf } from "../support/otlp-protobuf.ts";

// The encoder against OpenTelemetry's own protobuf serializer, on the same span objects: hand-made spans, so that
// every field and value the wire format has can be set, including those an SDK's attribute checks refuse.

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const RESOURCE = { attributes: { "service.name": "checkout", "host.cores": 8 }, schemaUrl: "https://r.example/1" };
const OTHER_RESOURCE = { attributes: {} };
const SCOPE = { name: "svc-sdk", version: "6.0.0", schemaUrl: "https://s.example/1" };
const BARE_SCOPE = { name: "bare" };
const SCOPE_WITH_ATTRIBUTES = {
  name: "with-attributes",
  attributes: { team: "ml", on: true },
  droppedAttributesCount: 3,
};

function traceState(serialized: string): TraceState {
  return { serialize: () => serialized } as TraceState;
}

function context(spanId: string, extra: Partial<SpanContext> = {}): SpanContext {
  return { traceId: TRACE, spanId, traceFlags: 1, ...extra };
}

type SpanSpec = Partial<Omit<ReadableSpan, "spanContext">> & {
  context?: SpanContext;
  instrumentationScope?: object;
  resource?: object;
};

let nextSpanId = 1;

/** An ended span with the fields of an SDK span, overridden by `spec`. */
function makeSpan(spec: SpanSpec = {}): ReadableSpan {
  const ctx = spec.context ?? context((nextSpanId++).toString(16).padStart(16, "0"));
  const span = {
    name: "work",
    kind: 0,
    startTime: [1_700_000_000, 123_456_789] as HrTime,
    endTime: [1_700_000_001, 5] as HrTime,
    status: { code: 0 },
    attributes: {},
    links: [],
    events: [],
    duration: [1, 0] as HrTime,
    ended: true,
    resource: RESOURCE,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...spec,
    spanContext: () => ctx,
  };
  return span as unknown as ReadableSpan;
}

function ours(spans: ReadableSpan[]): Buffer {
  const pieces = [...encodeTraceRequestProtobuf(spans.map((span) => ({ span, attributes: span.attributes })))];
  return Buffer.concat(pieces);
}

function theirs(spans: ReadableSpan[]): Buffer {
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(spans as never) ?? new Uint8Array());
}

const LONG_TEXT = `${"prose with ünïcödé and 😀 emoji ".repeat(4000)}end`; // about 130 KB: crosses chunk ends

/** Values of every type an attribute can hold on the wire, at the edges of each encoding. */
const VALUES: Attributes | Record<string, unknown> = {
  empty: "",
  ascii: "hello",
  latin: "grüße",
  cjk: "日本語のテキスト",
  emoji: "👩‍💻 ok",
  lone: "a\ud800b\udc00c",
  long: LONG_TEXT,
  zero: 0,
  one: 1,
  minusOne: -1,
  edge127: 127,
  edge128: 128,
  int31: 2 ** 31,
  int32: 2 ** 32,
  int32plus: 2 ** 32 + 1,
  safe: Number.MAX_SAFE_INTEGER,
  negativeSafe: Number.MIN_SAFE_INTEGER,
  big: 2 ** 60,
  minInt64: -(2 ** 63),
  beyondInt64: 2 ** 63,
  half: 1.5,
  negative: -0.25,
  nan: Number.NaN,
  infinity: Number.POSITIVE_INFINITY,
  minusZero: -0,
  yes: true,
  no: false,
  strings: ["a", "", "ü"],
  numbers: [1, 2.5, -3],
  flags: [true, false],
  holes: ["a", null, undefined, "b"],
  emptyList: [],
  nested: [
    [1, 2],
    ["x", ["y"]],
  ],
  bytes: new Uint8Array([0, 1, 2, 254, 255]),
  noBytes: new Uint8Array(0),
  object: { a: 1, b: "two", c: [true], d: { deep: null } },
  nothing: null,
  undefinedValue: undefined,
};

describe("the OTLP/protobuf encoder", () => {
  it("writes the bytes of OpenTelemetry's protobuf serializer for spans with every kind of field", () => {
    const remoteParent = context("00f067aa0ba902b7", { isRemote: true, traceState: traceState("vendor=1") });
    const spans = [
      makeSpan({ name: "values", attributes: VALUES as Attributes }),
      makeSpan({
        name: "everything else",
        kind: 2,
        context: context("b7ad6b7169203331", { traceFlags: 0, traceState: traceState("a=1,b=2") }),
        parentSpanContext: remoteParent,
        status: { code: 2, message: "boom" },
        droppedAttributesCount: 7,
        droppedEventsCount: 300,
        droppedLinksCount: 1,
        events: [
          { name: "no attributes", time: [1_700_000_000, 999_999_999] },
          { name: "with attributes", time: [0, 0], attributes: { step: 1, note: "ü" }, droppedAttributesCount: 2 },
        ],
        links: [
          { context: remoteParent, attributes: { why: "follows" }, droppedAttributesCount: 4 } as Link,
          { context: context("1111111111111111", { traceFlags: 0 }) },
        ],
      }),
      ...[0, 1, 2, 3, 4].map((kind) => makeSpan({ name: `kind ${kind}`, kind, parentSpanContext: context("22") })),
      makeSpan({ name: "unset kind", kind: undefined }),
      makeSpan({ name: "ok", status: { code: 1, message: "" } }),
      makeSpan({ name: "", instrumentationScope: BARE_SCOPE }),
      makeSpan({ name: "scoped", instrumentationScope: SCOPE_WITH_ATTRIBUTES }),
      makeSpan({ name: "other resource", resource: OTHER_RESOURCE }),
      makeSpan({ name: "far future", startTime: [5_000_000_000, 1], endTime: [2 ** 33, 999_999_999] }),
      makeSpan({ name: "epoch", startTime: [0, 0], endTime: [0, 1] }),
      makeSpan({ name: "unnormalized", startTime: [1_700_000_000, 2_500_000_000], endTime: [1_700_000_000.5, 250.5] }),
      makeSpan({ name: "back to the first scope" }),
    ];

    const bytes = ours(spans);

    expect(bytes.length).toBeGreaterThan(2 * 64 * 1024);
    expect(bytes.equals(theirs(spans))).toBe(true);
  });

  it("writes the bytes of OpenTelemetry's protobuf serializer for any attribute values and names", () => {
    const anyChar = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: anyChar }));
    const scalar = fc.oneof(
      text,
      fc.boolean(),
      fc.integer(),
      fc.maxSafeInteger(),
      fc.double(),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(Number),
      fc.constant(null),
    );
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 5 }));
    const spanSpec = fc.record({
      name: text,
      attributes: fc.dictionary(text, value, { maxKeys: 8 }),
      events: fc.array(
        fc.record({
          name: text,
          time: fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 999_999_999 })),
          attributes: fc.dictionary(text, value, { maxKeys: 3 }),
        }),
        { maxLength: 3 },
      ),
      startTime: fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 999_999_999 })),
    });

    fc.assert(
      fc.property(fc.array(spanSpec, { minLength: 1, maxLength: 4 }), (specs) => {
        const spans = specs.map((spec) => makeSpan(spec as SpanSpec));
        expect(ours(spans).equals(theirs(spans))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("hands out the body in pieces of at most 64 KiB", () => {
    const spans = Array.from({ length: 400 }, (_, i) => makeSpan({ attributes: { text: `${i} ${"ü".repeat(900)}` } }));

    const pieces = [...encodeTraceRequestProtobuf(spans.map((span) => ({ span, attributes: span.attributes })))];

    expect(pieces.length).toBeGreaterThan(10);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(64 * 1024);
    expect(spansOf(decodeTraceRequest(Buffer.concat(pieces)))).toHaveLength(400);
  });

  it("encodes the attributes it is given, not the span's own", () => {
    const span = makeSpan({ attributes: { "svc.observation.input": "secret" } });

    const [piece] = encodeTraceRequestProtobuf([{ span, attributes: { "svc.observation.input": "***" } }]);

    expect(spansOf(decodeTraceRequest(piece as Uint8Array))[0]?.attributes).toEqual([
      { key: "svc.observation.input", value: { stringValue: "***" } },
    ]);
  });

  it("refuses to finish a body whose span data changed between measuring and writing it", () => {
    let reads = 0;
    const attributes = Object.defineProperty({}, "shifty", {
      enumerable: true,
      get: () => (reads++ === 0 ? "short" : "a much longer value"),
    }) as Attributes;
    const span = makeSpan({ attributes });

    expect(() => [...encodeTraceRequestProtobuf([{ span, attributes }])]).toThrow(/changed/);
  });

  it("counts the UTF-8 bytes of any text as TextEncoder writes them, where Node's Buffer is missing", () => {
    const anyChar = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    const encoder = new TextEncoder();
    for (const text of ["", "a", "ü", "€", "😀", "\ud800", "\udc00\ud800", "a\ud83d", "\ud83d\ude00\ude00"])
      expect(utf8Length(text), JSON.stringify(text)).toBe(encoder.encode(text).length);

    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: anyChar })), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 1000 },
    );
  });
});
