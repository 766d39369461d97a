import { serializeValue } from "@svc/core";
import {
  SvcOtelSpanAttributes as A,
  CIRCULAR_MARKER,
  FAILED_TO_SERIALIZE,
  MAX_DEPTH_MARKER,
  MAX_SERIALIZED_LENGTH,
  startObservation,
} from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

describe("serializeValue", () => {
  it("keeps strings as they are and writes plain data as JSON", () => {
    expect(serializeValue("plain text")).toBe("plain text");
    expect(serializeValue({ a: [1, null, "x"], b: { c: true } })).toBe('{"a":[1,null,"x"],"b":{"c":true}}');
    expect(serializeValue(3.5)).toBe("3.5");
    expect(serializeValue(null)).toBe("null");
  });

  it("returns undefined for undefined, a stable text for a function or symbol, and omits them inside objects as JSON does", () => {
    expect(serializeValue(undefined)).toBeUndefined();
    expect(serializeValue(() => 1)).toBe("[Function]");
    expect(serializeValue(function named() {})).toBe("[Function: named]");
    expect(serializeValue(Symbol("s"))).toBe("Symbol(s)");
    expect(serializeValue({ keep: 1, fn: () => 1, sym: Symbol("s"), list: [() => 1] })).toBe(
      '{"keep":1,"list":[null]}',
    );
  });

  it('writes a cycle as "[Circular]" and keeps repeated, non-circular references', () => {
    const shared = { id: 1 };
    const node: Record<string, unknown> = { name: "root", pair: [shared, shared] };
    node.self = node;

    expect(JSON.parse(serializeValue(node)!)).toEqual({
      name: "root",
      pair: [{ id: 1 }, { id: 1 }],
      self: CIRCULAR_MARKER,
    });
  });

  it("writes a BigInt as its decimal string", () => {
    expect(serializeValue({ big: 12345678901234567890n })).toBe('{"big":"12345678901234567890"}');
    expect(serializeValue(10n)).toBe('"10"');
  });

  it("writes an Error as its name, message and stack, also when nested", () => {
    const error = new TypeError("bad");

    expect(JSON.parse(serializeValue(error)!)).toEqual({ name: "TypeError", message: "bad", stack: error.stack });
    expect(JSON.parse(serializeValue({ failure: error })!).failure).toMatchObject({
      name: "TypeError",
      message: "bad",
    });
  });

  it("writes maps as objects and sets as arrays", () => {
    expect(serializeValue({ m: new Map([["k", 1]]), s: new Set(["a", "b"]) })).toBe('{"m":{"k":1},"s":["a","b"]}');
  });

  it("keeps dates as ISO strings and uses toJSON", () => {
    expect(serializeValue({ at: new Date("2026-01-01T00:00:00.000Z") })).toBe('{"at":"2026-01-01T00:00:00.000Z"}');
    expect(serializeValue({ custom: { toJSON: () => "mine" } })).toBe('{"custom":"mine"}');
  });

  it("replaces a throwing getter or toJSON with the failure marker and keeps the rest", () => {
    const value = {
      ok: 1,
      get broken() {
        throw new Error("no");
      },
      nested: {
        toJSON: () => {
          throw new Error("no");
        },
      },
    };

    expect(JSON.parse(serializeValue(value)!)).toEqual({
      ok: 1,
      broken: FAILED_TO_SERIALIZE,
      nested: FAILED_TO_SERIALIZE,
    });
  });

  it("returns the failure marker for a value that cannot be read at all", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no access");
        },
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );

    expect(serializeValue(hostile)).toBe(FAILED_TO_SERIALIZE);
  });

  it("cuts nesting deeper than the depth limit with a marker", () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 10_000; i++) deep = { next: deep };

    const text = serializeValue(deep)!;

    expect(text).toContain(MAX_DEPTH_MARKER);
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it("truncates text longer than the size cap with a marker", () => {
    const huge = "x".repeat(MAX_SERIALIZED_LENGTH + 10);

    const text = serializeValue(huge)!;

    expect(text).toHaveLength(MAX_SERIALIZED_LENGTH + "...[truncated 10 characters]".length);
    expect(text.endsWith("...[truncated 10 characters]")).toBe(true);
    expect(serializeValue({ huge })!.endsWith("...[truncated 21 characters]")).toBe(true);
  });

  it("keeps an empty object in plain data", () => {
    expect(serializeValue({ empty: {}, list: [] })).toBe('{"empty":{},"list":[]}');
  });
});

describe("observation metadata", () => {
  it("writes one attribute per top-level key, keeping strings, numbers and booleans", () => {
    startObservation("typed", { metadata: { name: "a", count: 2, ratio: 0.5, on: false, none: null } }).end();

    const attributes = otel.span("typed").attributes;
    expect(attributes).toMatchObject({
      [`${A.OBSERVATION_METADATA}.name`]: "a",
      [`${A.OBSERVATION_METADATA}.count`]: 2,
      [`${A.OBSERVATION_METADATA}.ratio`]: 0.5,
      [`${A.OBSERVATION_METADATA}.on`]: false,
      [`${A.OBSERVATION_METADATA}.none`]: "null",
    });
    expect(attributes[A.OBSERVATION_METADATA]).toBeUndefined();
  });

  it("writes a nested object as JSON at its key and as dotted leaf paths", () => {
    startObservation("nested", { metadata: { a: { b: 1, c: { d: "x", e: [1, 2] } } } }).end();

    expect(otel.span("nested").attributes).toMatchObject({
      [`${A.OBSERVATION_METADATA}.a`]: '{"b":1,"c":{"d":"x","e":[1,2]}}',
      [`${A.OBSERVATION_METADATA}.a.b`]: 1,
      [`${A.OBSERVATION_METADATA}.a.c.d`]: "x",
      [`${A.OBSERVATION_METADATA}.a.c.e`]: "[1,2]",
    });
  });

  it("writes non-object metadata whole as JSON text", () => {
    startObservation("array-meta", { metadata: ["a", 1] }).end();
    startObservation("number-meta", { metadata: 5 }).end();

    expect(otel.span("array-meta").attributes[A.OBSERVATION_METADATA]).toBe('["a",1]');
    expect(otel.span("number-meta").attributes[A.OBSERVATION_METADATA]).toBe("5");
  });

  it("bounds the dotted paths in count and depth", () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 100; i++) wide[`k${i}`] = i;
    startObservation("bounded", { metadata: { wide, deep: { l1: { l2: { l3: { l4: { l5: 1 } } } } } } }).end();

    const keys = Object.keys(otel.span("bounded").attributes).filter((key) =>
      key.startsWith(`${A.OBSERVATION_METADATA}.wide.`),
    );
    expect(keys).toHaveLength(32); // the most dotted paths written per metadata value

    startObservation("deep", { metadata: { deep: { l1: { l2: { l3: { l4: { l5: 1 } } } } } } }).end();
    expect(otel.span("deep").attributes[`${A.OBSERVATION_METADATA}.deep.l1.l2.l3.l4`]).toBe('{"l5":1}');
  });

  it("handles cyclic metadata without throwing", () => {
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;

    startObservation("cyclic", { metadata: { loop } }).end();

    const attributes = otel.span("cyclic").attributes;
    expect(attributes[`${A.OBSERVATION_METADATA}.loop`]).toBe('{"name":"loop","self":"[Circular]"}');
    expect(attributes[`${A.OBSERVATION_METADATA}.loop.name`]).toBe("loop");
  });

  it("writes hostile input and output values with a defined representation", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;

    startObservation("hostile-io", { input: { n: 1n, error: new Error("x") }, output: cyclic }).end();

    const attributes = otel.span("hostile-io").attributes;
    expect(JSON.parse(attributes[A.OBSERVATION_INPUT] as string)).toMatchObject({
      n: "1",
      error: { name: "Error", message: "x" },
    });
    expect(attributes[A.OBSERVATION_OUTPUT]).toBe('{"me":"[Circular]"}');
  });
});
