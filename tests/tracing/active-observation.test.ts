import { context, propagation, trace } from "@opentelemetry/api";
import { hasTraceIdClaim } from "@svc/core";
import {
  SvcOtelSpanAttributes as A,
  getActiveSpanId,
  getActiveTraceId,
  SvcGeneration,
  setActiveTraceAsPublic,
  startActiveObservation,
  startObservation,
  updateActiveObservation,
} from "@svc/tracing";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { parentId, useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe("startActiveObservation", () => {
  it("runs a sync function with the observation active and returns its result", () => {
    const result = startActiveObservation("sync", (span) => {
      expect(getActiveSpanId()).toBe(span.id);
      startObservation("child").end();
      return 42;
    });

    expect(result).toBe(42);
    expect(parentId(otel.span("child"))).toBe(otel.span("sync").spanContext().spanId);
  });

  it("ends an async observation when its promise settles, keeping it active across await", async () => {
    const pending = startActiveObservation("async", async () => {
      await tick();
      startObservation("after-await").end();
      return "done";
    });
    expect(otel.spans()).toHaveLength(0);

    expect(await pending).toBe("done");
    expect(parentId(otel.span("after-await"))).toBe(otel.span("async").spanContext().spanId);
  });

  it("passes the typed observation for the given type", () => {
    startActiveObservation(
      "gen",
      (generation) => {
        expect(generation).toBeInstanceOf(SvcGeneration);
        generation.update({ model: "m", usageDetails: { input: 1 } });
      },
      { asType: "generation" },
    );

    expect(otel.span("gen").attributes).toMatchObject({
      [A.OBSERVATION_TYPE]: "generation",
      [A.OBSERVATION_MODEL]: "m",
    });
  });

  it("records a throw as level ERROR with the message, ends the span and rethrows the same error", () => {
    const error = new Error("boom");

    let thrown: unknown;
    try {
      startActiveObservation("throws", () => {
        throw error;
      });
    } catch (err) {
      thrown = err;
    }

    expect(thrown).toBe(error);

    const span = otel.span("throws");
    expect(span.attributes[A.OBSERVATION_LEVEL]).toBe("ERROR");
    expect(span.attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("boom");
    expect(span.status).toEqual({ code: 2, message: "boom" });
  });

  it("records a rejection as level ERROR and rejects with the same error", async () => {
    const error = new TypeError("bad input");

    await expect(
      startActiveObservation("rejects", async () => {
        await tick();
        throw error;
      }),
    ).rejects.toBe(error);

    expect(otel.span("rejects").attributes[A.OBSERVATION_LEVEL]).toBe("ERROR");
    expect(otel.span("rejects").attributes[A.OBSERVATION_STATUS_MESSAGE]).toBe("bad input");
  });

  it("leaves the observation open with endOnExit: false", () => {
    const kept = startActiveObservation("open", (span) => span, { endOnExit: false });
    expect(otel.spans()).toHaveLength(0);

    kept.end();
    expect(otel.spans().map((s) => s.name)).toEqual(["open"]);
  });

  it("nests active observations and keeps one trace", async () => {
    await startActiveObservation("outer", async (outer) => {
      await startActiveObservation("middle", async () => {
        await tick();
        startActiveObservation("inner", () => undefined);
      });
      expect(getActiveSpanId()).toBe(outer.id);
    });

    expect(parentId(otel.span("middle"))).toBe(otel.span("outer").spanContext().spanId);
    expect(parentId(otel.span("inner"))).toBe(otel.span("middle").spanContext().spanId);
    expect(new Set(otel.spans().map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("keeps concurrent branches apart under Promise.all", async () => {
    await startActiveObservation("fan-out", async () => {
      await Promise.all(
        ["a", "b", "c"].map((branch) =>
          startActiveObservation(`branch-${branch}`, async () => {
            await tick();
            startObservation(`leaf-${branch}`).end();
          }),
        ),
      );
    });

    for (const branch of ["a", "b", "c"]) {
      expect(parentId(otel.span(`branch-${branch}`))).toBe(otel.span("fan-out").spanContext().spanId);
      expect(parentId(otel.span(`leaf-${branch}`))).toBe(otel.span(`branch-${branch}`).spanContext().spanId);
    }
  });

  it("keeps the observation active in timer callbacks", async () => {
    await startActiveObservation("timers", async () => {
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          startObservation("from-timeout").end();
          resolve();
        }, 1),
      );
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          startObservation("from-immediate").end();
          resolve();
        }),
      );
    });

    const parent = otel.span("timers").spanContext().spanId;
    expect(parentId(otel.span("from-timeout"))).toBe(parent);
    expect(parentId(otel.span("from-immediate"))).toBe(parent);
  });

  it("keeps the observation active inside an async generator consumed in it", async () => {
    async function* produce() {
      for (let i = 0; i < 2; i++) {
        await tick();
        startObservation(`step-${i}`).end();
        yield i;
      }
    }

    await startActiveObservation("consumer", async () => {
      for await (const _ of produce()) {
        // consume
      }
    });

    const parent = otel.span("consumer").spanContext().spanId;
    expect(parentId(otel.span("step-0"))).toBe(parent);
    expect(parentId(otel.span("step-1"))).toBe(parent);
  });

  it("does not leak the observation to work started after it", async () => {
    await startActiveObservation("first", async () => {
      await tick();
    });
    startObservation("later").end();

    expect(parentId(otel.span("later"))).toBeUndefined();
    expect(getActiveSpanId()).toBeUndefined();
  });

  it("attaches to an explicit parent span context", () => {
    const parent = startObservation("explicit-parent");
    startActiveObservation("child", () => undefined, { parentSpanContext: parent.otelSpan.spanContext() });
    parent.end();

    expect(parentId(otel.span("child"))).toBe(parent.id);
  });

  it("puts the trace-id claim into the callback's baggage", () => {
    startActiveObservation("claimed", (span) => {
      const active = context.active();
      expect(propagation.getBaggage(active)?.getEntry("svc_trace_id")?.value).toBe(span.traceId);
      expect(hasTraceIdClaim(active, span.traceId)).toBe(true);
      expect(hasTraceIdClaim(active, "0".repeat(32))).toBe(false);
    });

    expect(hasTraceIdClaim(context.active(), otel.span("claimed").spanContext().traceId)).toBe(false);
  });
});

describe("updateActiveObservation", () => {
  it("updates the active observation", () => {
    startActiveObservation("root", () => {
      updateActiveObservation({ input: { q: 1 }, output: "a", metadata: { step: 2 } });
    });

    expect(otel.span("root").attributes).toMatchObject({
      [A.OBSERVATION_INPUT]: '{"q":1}',
      [A.OBSERVATION_OUTPUT]: "a",
      [A.OBSERVATION_METADATA + ".step"]: 2,
      [A.OBSERVATION_TYPE]: "span",
    });
  });

  it("changes the type with asType and writes generation attributes", () => {
    startActiveObservation("retyped", () => {
      updateActiveObservation({ model: "claude", usageDetails: { total: 3 } }, { asType: "generation" });
    });

    expect(otel.span("retyped").attributes).toMatchObject({
      [A.OBSERVATION_TYPE]: "generation",
      [A.OBSERVATION_MODEL]: "claude",
      [A.OBSERVATION_USAGE_DETAILS]: '{"total":3}',
    });
  });

  it("updates a span another library made active", () => {
    trace.getTracer("other-lib").startActiveSpan("foreign", (span) => {
      updateActiveObservation({ output: "x" });
      span.end();
    });

    expect(otel.span("foreign").attributes[A.OBSERVATION_OUTPUT]).toBe("x");
  });

  it("logs a warning and drops the update outside an observation", () => {
    const logs = captureLogs();

    updateActiveObservation({ output: "lost" });

    expect(logs).toEqual([
      { level: "warn", message: "[Svc SDK] updateActiveObservation: no active observation; update dropped" },
    ]);
  });

  it("logs 1,000 updates outside an observation once, and their count on a repeat ten seconds later", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const logs = captureLogs();

    for (let i = 0; i < 1_000; i++) updateActiveObservation({ output: i });
    expect(logs).toHaveLength(1);
    vi.advanceTimersByTime(10_000);
    updateActiveObservation({ output: "late" });

    expect(logs.map((l) => l.message)).toEqual([
      "[Svc SDK] updateActiveObservation: no active observation; update dropped",
      "[Svc SDK] updateActiveObservation: no active observation; update dropped: happened 1000 more time(s) since the last message",
    ]);
  });

  it("logs a flood of failing observation updates once", () => {
    const logs = captureLogs();
    const hostile = {
      get output(): unknown {
        throw new Error("getter exploded");
      },
    };

    startActiveObservation("flooded", (span) => {
      for (let i = 0; i < 1_000; i++) span.update(hostile as never);
    });

    expect(logs).toEqual([
      {
        level: "warn",
        message: "[Svc SDK] a value could not be read and was recorded as <failed to serialize>: getter exploded",
      },
    ]);
  });
});

describe("active trace helpers", () => {
  it("getActiveTraceId() and getActiveSpanId() return the active observation's ids, undefined outside", () => {
    expect(getActiveTraceId()).toBeUndefined();
    startActiveObservation("ids", (span) => {
      expect(getActiveTraceId()).toBe(span.traceId);
      expect(getActiveSpanId()).toBe(span.id);
    });
  });

  it("setActiveTraceAsPublic() marks the active observation's trace public", () => {
    startActiveObservation("public-root", () => setActiveTraceAsPublic());

    expect(otel.span("public-root").attributes[A.TRACE_PUBLIC]).toBe(true);
  });
});
