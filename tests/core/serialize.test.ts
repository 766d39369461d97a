import type { Attributes } from "@opentelemetry/api";
import {
  CIRCULAR_MARKER,
  cutAtCodePoint,
  FAILED_TO_SERIALIZE,
  MAX_SERIALIZED_LENGTH,
  serializeValue,
  stableText,
  toJsonSafe,
  truncateText,
  writeMetadata,
} from "@svc/core";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { isWellFormed } from "../support/text.ts";

const EMOJI = "\u{1F600}"; // two UTF-16 code units

describe("truncateText", () => {
  it("cuts at a code-point boundary, never inside a surrogate pair, and says how much was cut", () => {
    const text = `ab${EMOJI}cd`;

    expect(cutAtCodePoint(text, 3)).toBe("ab");
    expect(cutAtCodePoint(text, 4)).toBe(`ab${EMOJI}`);
    expect(truncateText(text, 3)).toBe("ab...[truncated 4 characters]");
    expect(truncateText(text, 10)).toBe(text);
  });

  it("leaves no lone surrogate when a long string of emoji is serialized", () => {
    const text = serializeValue(EMOJI.repeat(MAX_SERIALIZED_LENGTH))!;

    expect(isWellFormed(text)).toBe(true);
    expect(text).toMatch(/\.\.\.\[truncated \d+ characters\]$/);
  });
});

describe("serializeValue on numbers and booleans given directly", () => {
  it("writes them as JSON text does: finite numbers as digits, NaN and the infinities as null", () => {
    expect(serializeValue(0)).toBe("0");
    expect(serializeValue(-0)).toBe("0");
    expect(serializeValue(1.5)).toBe("1.5");
    expect(serializeValue(-42)).toBe("-42");
    expect(serializeValue(1e21)).toBe("1e+21");
    expect(serializeValue(5e-324)).toBe("5e-324");
    expect(serializeValue(Number.MAX_VALUE)).toBe("1.7976931348623157e+308");
    expect(serializeValue(Number.NaN)).toBe("null");
    expect(serializeValue(Number.POSITIVE_INFINITY)).toBe("null");
    expect(serializeValue(Number.NEGATIVE_INFINITY)).toBe("null");
    expect(serializeValue(true)).toBe("true");
    expect(serializeValue(false)).toBe("false");
  });
});

describe("serializeValue on hostile values", () => {
  it("writes binary data as a short summary instead of an object of numeric keys", () => {
    const bytes = new Uint8Array(4 * 1024 * 1024);

    expect(serializeValue(bytes)).toBe('"[Uint8Array: 4194304 bytes]"');
    expect(serializeValue({ image: Buffer.alloc(10), raw: new ArrayBuffer(3) })).toBe(
      '{"image":"[Buffer: 10 bytes]","raw":"[ArrayBuffer: 3 bytes]"}',
    );
  });

  it("writes an Error that carries extra properties as name, message, stack and cause", () => {
    const cause = new RangeError("inner");
    const error = Object.assign(new Error("outer", { cause }), { code: "E_X" });

    const written = JSON.parse(serializeValue({ error })!) as { error: Record<string, unknown> };

    expect(written.error).toEqual({
      name: "Error",
      message: "outer",
      stack: error.stack,
      cause: { name: "RangeError", message: "inner", stack: cause.stack },
    });
  });

  it("writes map keys that cannot be printed as a marker and keeps the other entries", () => {
    const key = {
      toString() {
        throw new Error("no text");
      },
    };

    expect(
      serializeValue(
        new Map<unknown, number>([
          ["a", 1],
          [key, 2],
        ]),
      ),
    ).toBe(JSON.stringify({ a: 1, [FAILED_TO_SERIALIZE]: 2 }));
  });

  it("gives BigInt, symbols and functions a stable text", () => {
    expect(stableText(12n)).toBe("12");
    expect(stableText(Symbol("tag"))).toBe("Symbol(tag)");
    expect(stableText(function handler() {})).toBe("[Function: handler]");
    expect(stableText(() => 0)).toBe("[Function]");
  });

  it("logs a value that cannot be read once, then counts the repeats", () => {
    const logs = captureLogs();
    const hostile = {
      get broken(): unknown {
        throw new Error("getter exploded");
      },
    };

    for (let i = 0; i < 100; i++) serializeValue(hostile);

    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] a value could not be read and was recorded as <failed to serialize>: getter exploded",
    ]);
  });
});

describe("toJsonSafe", () => {
  it("copies a value into plain JSON data with markers for what JSON cannot express", () => {
    const cyclic: Record<string, unknown> = { name: "c" };
    cyclic.self = cyclic;

    expect(
      toJsonSafe({
        n: 10n,
        set: new Set([1]),
        map: new Map([["k", "v"]]),
        cyclic,
        nan: Number.NaN,
        skip: () => 1,
      }),
    ).toEqual({ n: "10", set: [1], map: { k: "v" }, cyclic: { name: "c", self: CIRCULAR_MARKER }, nan: null });
  });

  it("returns the failure marker for a Proxy that cannot be read at all", () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("no prototype");
        },
      },
    );

    expect(toJsonSafe(hostile)).toBe(FAILED_TO_SERIALIZE);
  });
});

describe("writeMetadata", () => {
  it('keeps both values of {"a.b": 1, "a": {"b": 2}}: the top-level key wins the dotted path', () => {
    for (const metadata of [
      { "a.b": 1, a: { b: 2 } },
      { a: { b: 2 }, "a.b": 1 },
    ]) {
      const out: Attributes = {};

      writeMetadata(out, "m", metadata);

      expect(out).toEqual({ "m.a.b": 1, "m.a": '{"b":2}' });
    }
  });

  it("costs a value whose getter throws only that value", () => {
    const out: Attributes = {};
    const metadata = {
      ok: "yes",
      get broken(): unknown {
        throw new Error("getter exploded");
      },
      count: 3,
    };

    writeMetadata(out, "m", metadata);

    expect(out).toEqual({ "m.ok": "yes", "m.broken": FAILED_TO_SERIALIZE, "m.count": 3 });
  });

  it("writes metadata whose keys cannot be listed as the failure marker", () => {
    const out: Attributes = {};
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );

    writeMetadata(out, "m", hostile);

    expect(out).toEqual({ m: FAILED_TO_SERIALIZE });
  });

  it("cuts a long metadata key at a code-point boundary", () => {
    const out: Attributes = {};
    const longest = 200; // the longest metadata key, in UTF-16 code units
    const key = EMOJI.repeat(longest);

    writeMetadata(out, "m", { [key]: 1 });

    const [written] = Object.keys(out);
    expect(isWellFormed(written)).toBe(true);
    expect(written?.length).toBeLessThan(longest + 40);
    expect(out[written as string]).toBe(1);
  });
});
