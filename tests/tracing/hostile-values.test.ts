import {
  SvcOtelSpanAttributes as A,
  FAILED_TO_SERIALIZE,
  observe,
  propagateAttributes,
  startActiveObservation,
  startObservation,
  updateActiveObservation,
} from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { isWellFormed } from "../support/text.ts";
import { useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

/** `base` with one more enumerable field whose getter throws. */
function throwing(field: string, base: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.defineProperty(base, field, {
    enumerable: true,
    get() {
      throw new Error(`${field} exploded`);
    },
  });
}

describe("one hostile value costs only itself", () => {
  it("keeps the input, output and other metadata of an update when one metadata value cannot be read", () => {
    captureLogs();
    const metadata = throwing("broken", { ok: 1 });

    startObservation("meta").update({ input: "in", output: "out", metadata }).end();

    const attributes = otel.span("meta").attributes;
    expect(attributes[A.OBSERVATION_INPUT]).toBe("in");
    expect(attributes[A.OBSERVATION_OUTPUT]).toBe("out");
    expect(attributes[`${A.OBSERVATION_METADATA}.ok`]).toBe(1);
    expect(attributes[`${A.OBSERVATION_METADATA}.broken`]).toBe(FAILED_TO_SERIALIZE);
  });

  it("writes metadata that cannot be read at all as the marker and keeps the rest of the update", () => {
    captureLogs();
    const params = throwing("metadata", { input: "in" });

    startObservation("meta-whole")
      .update(params as never)
      .end();

    const attributes = otel.span("meta-whole").attributes;
    expect(attributes[A.OBSERVATION_INPUT]).toBe("in");
    expect(attributes[A.OBSERVATION_METADATA]).toBe(FAILED_TO_SERIALIZE);
  });

  it("writes every readable field of an update when one field in the middle cannot be read", () => {
    captureLogs();
    const params = throwing("level", { input: "in", output: "out", metadata: { k: 1 } });
    params.model = "m-1";

    startObservation("middle", undefined, { asType: "generation" })
      .update(params as never)
      .end();

    const attributes = otel.span("middle").attributes;
    expect(attributes[A.OBSERVATION_INPUT]).toBe("in");
    expect(attributes[A.OBSERVATION_OUTPUT]).toBe("out");
    expect(attributes[`${A.OBSERVATION_METADATA}.k`]).toBe(1);
    expect(attributes[A.OBSERVATION_MODEL]).toBe("m-1");
    expect(attributes[A.OBSERVATION_LEVEL]).toBeUndefined();
  });

  it("keeps the propagated sessionId and tags when reading userId throws", () => {
    captureLogs();
    const params = throwing("userId", { sessionId: "s-1", tags: ["t"], metadata: throwing("bad", { k: "v" }) });

    propagateAttributes(params as never, () => startObservation("propagated").end());

    const attributes = otel.span("propagated").attributes;
    expect(attributes[A.TRACE_USER_ID]).toBeUndefined();
    expect(attributes[A.TRACE_SESSION_ID]).toBe("s-1");
    expect(attributes[A.TRACE_TAGS]).toEqual(["t"]);
    expect(attributes[`${A.TRACE_METADATA}.k`]).toBe("v");
    expect(attributes[`${A.TRACE_METADATA}.bad`]).toBe(FAILED_TO_SERIALIZE);
  });

  it("keeps userId when the tags cannot be iterated", () => {
    captureLogs();
    const tags = new Proxy(["a"], {
      get(target, key) {
        if (key === Symbol.iterator) throw new Error("no iteration");
        return Reflect.get(target, key);
      },
    });

    propagateAttributes({ userId: "u-1", tags }, () => startObservation("tags").end());

    expect(otel.span("tags").attributes[A.TRACE_USER_ID]).toBe("u-1");
  });

  it("cuts a long span name at a code-point boundary", () => {
    const name = "\u{1F600}".repeat(5_000);

    startObservation(name).end();

    const [span] = otel.spans();
    expect(isWellFormed(span?.name)).toBe(true);
    expect(span?.name.length).toBeLessThan(1_100);
  });

  it("records a name that is not a string as its text", () => {
    startObservation(Symbol("sym") as never).end();

    expect(otel.spans().map((s) => s.name)).toEqual(["Symbol(sym)"]);
  });
});

describe("hostile arguments never throw", () => {
  it("ignores options that cannot be read, times that are not times and parents that are not span contexts", () => {
    captureLogs();
    const options = throwing("asType", { startTime: "yesterday", parentSpanContext: { nope: true } });

    startObservation("opts", undefined, options as never).end(Number.NaN as never);
    startActiveObservation("active-opts", () => undefined, null as never);
    updateActiveObservation(null as never, 5 as never);

    expect(otel.spans().map((s) => s.name)).toEqual(["opts", "active-opts"]);
  });

  it("runs nothing and throws nothing when the callback is not a function", () => {
    const logs = captureLogs();

    expect(startActiveObservation("no-fn", 42 as never)).toBeUndefined();
    expect(propagateAttributes({ userId: "u" }, "nope" as never)).toBeUndefined();
    expect(observe(null as never)).toBeNull();

    expect(otel.spans().map((s) => s.name)).toEqual(["no-fn"]);
    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] startActiveObservation: the callback is not a function; nothing was run",
      "[Svc SDK] propagateAttributes: the callback is not a function; nothing was run",
      "[Svc SDK] observe: the callback is not a function; nothing was run",
    ]);
  });
});
