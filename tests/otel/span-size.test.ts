import type { Attributes, Link, SpanContext } from "@opentelemetry/api";
import { type ReadableSpan, type SpanExportProtocol, SvcSpanProcessor } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import fc from "fast-check";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer, SILENT } from "../support/faults.ts";
import type { TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { otlpRequests } from "../support/otel.ts";
import { spanMessageSizes } from "../support/otlp-protobuf.ts";

// ---- Spans of any shape, as a span processor is given them. ----

/** Text of every kind: ASCII, any printable grapheme, what JSON escapes, and long runs of 1- to 4-byte characters. */
const text = fc.oneof(
  fc.string({ unit: "grapheme-ascii", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('"', "\\", "\n", "\t", "é", "中", "😀", "a", " "), maxLength: 400 }),
  fc
    .tuple(fc.constantFrom("a", "é", "中", "😀", '"', "\n"), fc.integer({ min: 100, max: 5_000 }))
    .map(([char, times]) => char.repeat(times)),
);

const primitive = fc.oneof(
  text,
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);

/** Attribute values: primitives, homogeneous and mixed arrays, and nested values (arrays, objects, bytes, null). */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    primitive,
    fc.array(text, { maxLength: 30 }),
    fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 30 }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
    fc.uint8Array({ maxLength: 2_000 }),
    fc.constant(null),
  ),
}));

const attributes = fc.dictionary(text, value, { maxKeys: 12 }) as fc.Arbitrary<Attributes>;

const HEX = "0123456789abcdef";
/** A valid id: hex digits, not all zero. */
const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...HEX), minLength: length - 1, maxLength: length - 1 }).map((h) => `1${h}`);

const spanContext = fc.record({
  traceId: hex(32),
  spanId: hex(16),
  traceFlags: fc.constantFrom(0, 1),
  isRemote: fc.boolean(),
  traceState: fc.option(
    fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/), fc.stringMatching(/^[a-z0-9]{1,40}$/)), {
      minLength: 1,
      maxLength: 8,
    }),
    { nil: undefined },
  ),
});

function toContext(ctx: {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: boolean;
  traceState: [string, string][] | undefined;
}): SpanContext {
  const { traceState, ...rest } = ctx;
  if (!traceState) return rest;
  const serialized = traceState.map(([k, v]) => `${k}=${v}`).join(",");
  return { ...rest, traceState: { serialize: () => serialized } as SpanContext["traceState"] };
}

const spanShape = fc.record({
  name: text,
  kind: fc.integer({ min: 0, max: 4 }),
  context: spanContext.map((ctx) => ({ ...ctx, traceFlags: 1 })), // sampled: an unsampled span is not exported
  parent: fc.option(spanContext, { nil: undefined }),
  attributes,
  events: fc.array(fc.record({ name: text, attributes: fc.option(attributes, { nil: undefined }) }), { maxLength: 5 }),
  links: fc.array(fc.record({ context: spanContext, attributes: fc.option(attributes, { nil: undefined }) }), {
    maxLength: 4,
  }),
  status: fc.record({ code: fc.constantFrom(0, 1, 2), message: fc.option(text, { nil: undefined }) }),
});

type SpanShape = typeof spanShape extends fc.Arbitrary<infer S> ? S : never;

function toSpan(shape: SpanShape): ReadableSpan {
  const context = toContext(shape.context);
  const time: [number, number] = [1_700_000_000, 123_456_789];
  return {
    name: shape.name,
    kind: shape.kind,
    spanContext: () => context,
    parentSpanContext: shape.parent ? toContext(shape.parent) : undefined,
    startTime: time,
    endTime: [time[0] + 1, 0],
    duration: [1, 0],
    ended: true,
    status: shape.status,
    attributes: shape.attributes,
    events: shape.events.map((e, i) => ({ name: e.name, attributes: e.attributes, time: [time[0], i] })),
    links: shape.links.map((l): Link => ({ context: toContext(l.context), attributes: l.attributes })),
    resource: { attributes: { "service.name": "size-test" } },
    instrumentationScope: { name: "svc-sdk" },
  };
}

// ---- The estimate against the encoding, through the processor and a real server. ----

function processor(server: TestServer, protocol: SpanExportProtocol, params = {}) {
  const p = new SvcSpanProcessor(
    {
      baseUrl: server.url,
      publicKey: "pk-test",
      secretKey: "sk-test",
      protocol,
      compression: "none",
      flushAt: 10_000,
      flushInterval: 3600,
      ...params,
    },
    {},
  );
  onTestFinished(() => p.shutdown());
  return p;
}

/** Encoded bytes of the one span of the last request the server saw. */
function encodedSizeOfLastSpan(server: TestServer, protocol: SpanExportProtocol): number {
  const request = otlpRequests(server).at(-1);
  if (!request) throw new Error("no request");
  if (protocol === "http/protobuf") {
    const sizes = spanMessageSizes(request.body);
    if (sizes.length !== 1) throw new Error(`${sizes.length} spans in the request`);
    return sizes[0] as number;
  }
  const body = request.json as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  const spans = body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
  if (spans.length !== 1) throw new Error(`${spans.length} spans in the request`);
  return Buffer.byteLength(JSON.stringify(spans[0]));
}

describe("the queue's size estimate of a span", () => {
  for (const protocol of ["http/json", "http/protobuf"] as const) {
    it(`stays within a factor of two of the ${protocol} encoding for any span`, async () => {
      captureLogs(LogLevel.ERROR);
      const server = await faultServer(() => ({ status: 200, json: {} }));
      const p = processor(server, protocol);
      const ratios: number[] = [];

      await fc.assert(
        fc.asyncProperty(spanShape, async (shape) => {
          p.onEnd(toSpan(shape));
          const estimate = p.health().queuedBytes;
          await p.forceFlush();
          const ratio = estimate / encodedSizeOfLastSpan(server, protocol);
          ratios.push(ratio);
          expect(ratio).toBeGreaterThanOrEqual(0.5);
          expect(ratio).toBeLessThanOrEqual(2);
        }),
        { numRuns: 300 },
      );

      expect(ratios).toHaveLength(otlpRequests(server).length);
    });
  }
});

/** 10,240 UTF-16 code units of each kind of text (an emoji is two). */
const TEXT_KINDS = {
  ascii: "x".repeat(10_240),
  cjk: "\u4e2d".repeat(10_240),
  emoji: "\u{1f600}".repeat(5_120),
  "lone surrogates": "\ud800".repeat(10_240),
  "control characters": "\u0001".repeat(10_240),
};

/** Bytes V8 holds a flat string in: one per character when every character is at most U+00FF, else two. */
function bytesInMemory(value: string): number {
  return /[\u0100-\uffff]/.test(value) ? 2 * value.length : value.length;
}

describe("the queue's size estimate of a span by kind of text", () => {
  for (const protocol of ["http/json", "http/protobuf"] as const) {
    for (const [kind, value] of Object.entries(TEXT_KINDS)) {
      it(`is at least the ${protocol} encoding and 1.5 times the text's size in memory, at most twice that, for ${kind}`, async () => {
        captureLogs(LogLevel.ERROR);
        const server = await faultServer(() => ({ status: 200, json: {} }));
        const p = processor(server, protocol);
        const span = toSpan({
          name: "s",
          kind: 0,
          context: {
            traceId: "a".repeat(32),
            spanId: "b".repeat(16),
            traceFlags: 1,
            isRemote: false,
            traceState: undefined,
          },
          parent: undefined,
          attributes: { "svc.observation.input": value },
          events: [],
          links: [],
          status: { code: 0, message: undefined },
        });

        p.onEnd(span);
        const estimate = p.health().queuedBytes;
        await p.forceFlush();
        const encoded = encodedSizeOfLastSpan(server, protocol);

        // 1.5 times: what ASCII text is counted at for its one byte per character.
        const bound = Math.max(encoded, 1.5 * bytesInMemory(value));
        expect(estimate).toBeGreaterThanOrEqual(bound);
        expect(estimate).toBeLessThanOrEqual(2 * bound);
      });
    }
  }
});

describe("the queue's byte bound", () => {
  it("drops spans once their estimated bytes reach maxQueueBytes, well before maxQueueSize", async () => {
    const logs = captureLogs(LogLevel.ERROR);
    const server = await faultServer(SILENT);
    const maxQueueBytes = 256 * 1024;
    const p = processor(server, "http/json", { maxQueueBytes, maxQueueSize: 100_000, timeout: 30, flushTimeout: 1 });
    // Arrays and events: values the estimate of earlier versions counted as 16 bytes, or not at all.
    const tags = Array.from({ length: 50 }, (_, i) => `tag-${i}-${"t".repeat(40)}`);
    const span = (i: number) =>
      toSpan({
        name: `s${i}`,
        kind: 0,
        context: {
          traceId: "a".repeat(32),
          spanId: i.toString(16).padStart(16, "0"),
          traceFlags: 1,
          isRemote: false,
          traceState: undefined,
        },
        parent: undefined,
        attributes: { tags },
        events: [{ name: "step", attributes: { detail: "d".repeat(2_000) } }],
        links: [],
        status: { code: 0, message: undefined },
      });

    for (let i = 0; i < 1_000; i++) p.onEnd(span(i));
    const health = p.health();

    const encoded = Buffer.byteLength(JSON.stringify({ tags, detail: "d".repeat(2_000) }));
    expect(health.dropped.queueFull).toBeGreaterThan(0);
    expect(health.queued + health.inFlight + health.dropped.queueFull).toBe(1_000);
    expect((health.queued + health.inFlight) * encoded).toBeLessThanOrEqual(2 * maxQueueBytes);
    expect(logs.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /spans dropped, the queue is full: 1 span: \d+ spans \(\d+ KiB\) held, limits 100000 spans, 256 KiB/,
      ),
    );
  });
});
