import { context } from "@opentelemetry/api";
import { hasTraceIdClaim } from "@svc/core";
import {
  SvcOtelSpanAttributes as A,
  getActiveSpanId,
  getActiveTraceId,
  observe,
  startActiveObservation,
  startObservation,
} from "@svc/tracing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("observe", () => {
  it("records a sync call with its argument as input and its return value as output", () => {
    const double = observe(function double(n: number) {
      return n * 2;
    });

    expect(double(21)).toBe(42);
    expect(otel.span("double").attributes).toMatchObject({
      [A.OBSERVATION_TYPE]: "span",
      [A.OBSERVATION_INPUT]: "21",
      [A.OBSERVATION_OUTPUT]: "42",
    });
  });

  it("records the arguments as they were at the call, before the function changed them", () => {
    const append = observe(
      (list: number[]) => {
        list.push(2);
        return list.length;
      },
      { name: "append" },
    );

    append([1]);

    expect(otel.span("append").attributes[A.OBSERVATION_INPUT]).toBe("[1]");
  });

  it("records several arguments as an array and none as no input", () => {
    const add = observe((a: number, b: number) => a + b, { name: "add" });
    const nothing = observe(() => "x", { name: "nothing" });

    add(1, 2);
    nothing();

    expect(otel.span("add").attributes[A.OBSERVATION_INPUT]).toBe("[1,2]");
    expect(otel.span("nothing").attributes[A.OBSERVATION_INPUT]).toBeUndefined();
  });

  it("keeps the function's type, name and length", () => {
    const original = (text: string, times: number): string => text.repeat(times);
    const wrapped = observe(original);

    expectTypeOf(wrapped).toEqualTypeOf<typeof original>();
    expect(wrapped.name).toBe("original");
    expect(wrapped.length).toBe(2);
  });

  it("names an anonymous function anonymous-function and uses the given type", () => {
    observe([() => 1][0]!, { asType: "tool" })();

    expect(otel.span("anonymous-function").attributes[A.OBSERVATION_TYPE]).toBe("tool");
  });

  it("records an async function's resolved value and keeps the observation active across await", async () => {
    const fetchAnswer = observe(
      async (question: string) => {
        await tick();
        startObservation("inner").end();
        return { answer: `re: ${question}` };
      },
      { name: "fetch-answer", asType: "generation" },
    );

    await expect(fetchAnswer("hi")).resolves.toEqual({ answer: "re: hi" });
    const span = otel.span("fetch-answer");
    expect(span.attributes[A.OBSERVATION_OUTPUT]).toBe('{"answer":"re: hi"}');
    expect(span.attributes[A.OBSERVATION_TYPE]).toBe("generation");
    expect(parentId(otel.span("inner"))).toBe(span.spanContext().spanId);
  });

  it("does not capture input or output when told not to", () => {
    const secret = observe((password: string) => password.length, {
      name: "secret",
      captureInput: false,
      captureOutput: false,
    });

    secret("hunter2");

    const attributes = otel.span("secret").attributes;
    expect(attributes[A.OBSERVATION_INPUT]).toBeUndefined();
    expect(attributes[A.OBSERVATION_OUTPUT]).toBeUndefined();
  });

  it("rethrows a sync error unchanged and records it", () => {
    const error = new RangeError("too big");
    const fails = observe(
      (_n: number): number => {
        throw error;
      },
      { name: "fails" },
    );

    expect(thrownBy(() => fails(1))).toBe(error);
    expect(otel.span("fails").attributes).toMatchObject({
      [A.OBSERVATION_LEVEL]: "ERROR",
      [A.OBSERVATION_STATUS_MESSAGE]: "too big",
      [A.OBSERVATION_OUTPUT]: '{"error":"RangeError: too big"}',
    });
    expect(otel.span("fails").status.code).toBe(2);
  });

  it("rejects with an async error unchanged and records it", async () => {
    const error = new Error("upstream down");
    const fails = observe(
      async () => {
        await tick();
        throw error;
      },
      { name: "async-fails" },
    );

    await expect(fails()).rejects.toBe(error);
    expect(otel.span("async-fails").attributes[A.OBSERVATION_LEVEL]).toBe("ERROR");
    expect(otel.span("async-fails").attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("upstream down");
  });

  it("keeps `this` for class methods", () => {
    class Counter {
      count = 10;
      increment = observe(
        function (this: Counter, by: number) {
          this.count += by;
          return this.count;
        },
        { name: "increment" },
      );
    }
    class Greeter {
      constructor(readonly greeting: string) {}
      greet(name: string) {
        return `${this.greeting}, ${name}`;
      }
    }
    Greeter.prototype.greet = observe(Greeter.prototype.greet, { name: "greet" });

    expect(new Counter().increment(5)).toBe(15);
    expect(new Greeter("Hello").greet("Ada")).toBe("Hello, Ada");
    expect(otel.span("greet").attributes[A.OBSERVATION_OUTPUT]).toBe("Hello, Ada");
    expect(otel.span("increment").attributes[A.OBSERVATION_OUTPUT]).toBe("15");
  });

  it("nests observed calls and puts the trace-id claim into their context", () => {
    const inner = observe(function inner() {
      return hasTraceIdClaim(context.active(), getActiveTraceId() ?? "");
    });
    const outer = observe(function outer() {
      return inner();
    });

    expect(outer()).toBe(true);
    expect(parentId(otel.span("inner"))).toBe(otel.span("outer").spanContext().spanId);
  });

  it("records a sync generator's yielded items as output and ends when it is exhausted", () => {
    const seen: string[] = [];
    const count = observe(function* count(limit: number) {
      for (let i = 0; i < limit; i++) {
        seen.push(getActiveSpanId() ?? "none");
        yield i;
      }
      return "finished";
    });

    const iterator = count(3);
    expect(otel.spans()).toHaveLength(0);
    const values = [...iterator];

    expect(values).toEqual([0, 1, 2]);
    const span = otel.span("count");
    expect(span.attributes[A.OBSERVATION_OUTPUT]).toBe("[0,1,2]");
    expect(new Set(seen)).toEqual(new Set([span.spanContext().spanId]));
  });

  it("rethrows a sync generator's error unchanged and records it", () => {
    const error = new Error("bad row");
    const rows = observe(function* rows() {
      yield 1;
      throw error;
    });

    const seen: number[] = [];
    const thrown = thrownBy(() => {
      for (const row of rows()) seen.push(row);
    });

    expect(thrown).toBe(error);
    expect(seen).toEqual([1]);
    expect(otel.span("rows").attributes).toMatchObject({
      [A.OBSERVATION_LEVEL]: "ERROR",
      [A.OBSERVATION_STATUS_MESSAGE]: "bad row",
    });
  });

  it("passes values sent with next() into a generator", () => {
    const echo = observe(function* echo() {
      const received: unknown[] = [];
      while (received.length < 2) received.push(yield received.length);
      return received;
    });

    const iterator = echo();
    iterator.next();
    iterator.next("a");
    expect(iterator.next("b")).toEqual({ done: true, value: ["a", "b"] });
  });

  it("ends a generator that the consumer stops early", () => {
    let cleanedUp = false;
    const endless = observe(function* endless() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        cleanedUp = true;
      }
    });

    for (const value of endless()) if (value === 1) break;

    expect(cleanedUp).toBe(true);
    expect(otel.span("endless").attributes[A.OBSERVATION_OUTPUT]).toBe("[0,1]");
  });

  it("records an async generator's items, keeps its observation active and records its error", async () => {
    const stream = observe(async function* stream() {
      yield "Hel";
      await tick();
      startObservation("chunk-work").end();
      yield "lo";
      throw new Error("stream cut");
    });

    const received: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream()) received.push(chunk);
      })(),
    ).rejects.toThrow("stream cut");

    expect(received).toEqual(["Hel", "lo"]);
    const span = otel.span("stream");
    expect(span.attributes[A.OBSERVATION_LEVEL]).toBe("ERROR");
    expect(span.attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("stream cut");
    expect(parentId(otel.span("chunk-work"))).toBe(span.spanContext().spanId);
  });

  it("becomes a child of the active observation at call time", async () => {
    const step = observe(async () => "ok", { name: "step" });

    await startActiveObservation("pipeline", () => step());

    expect(parentId(otel.span("step"))).toBe(otel.span("pipeline").spanContext().spanId);
  });

  it("ends an async generator that the consumer stops early and lets it clean up", async () => {
    let cleanedUp = false;
    const ticks = observe(async function* ticks() {
      try {
        for (let i = 0; ; i++) {
          await tick();
          yield i;
        }
      } finally {
        cleanedUp = true;
      }
    });

    for await (const value of ticks()) if (value === 2) break;

    expect(cleanedUp).toBe(true);
    expect(otel.span("ticks").attributes[A.OBSERVATION_OUTPUT]).toBe("[0,1,2]");
  });

  it("leaves the observation open with endOnExit: false", () => {
    const open = observe(() => "value", { name: "open", endOnExit: false });

    open();

    expect(otel.spans()).toHaveLength(0);
  });

  it("records cyclic arguments without throwing", () => {
    const node: Record<string, unknown> = { id: 1 };
    node.self = node;
    const inspect = observe((value: Record<string, unknown>) => value.id, { name: "inspect" });

    expect(inspect(node)).toBe(1);
    expect(otel.span("inspect").attributes[A.OBSERVATION_INPUT]).toBe('{"id":1,"self":"[Circular]"}');
  });

  it("returns an iterable that is not a generator unchanged", () => {
    const stream = {
      extra: () => "kept",
      next: () => ({ done: true, value: undefined }),
      throw: () => ({ done: true, value: undefined }),
      return: () => ({ done: true, value: undefined }),
      [Symbol.iterator]() {
        return this;
      },
    };
    const open = observe(() => stream, { name: "stream-like", captureOutput: false });

    expect(open()).toBe(stream);
    expect(otel.spans().map((span) => span.name)).toEqual(["stream-like"]);
  });
});
