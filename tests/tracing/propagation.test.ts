import { context, propagation, ROOT_CONTEXT } from "@opentelemetry/api";
import { getPropagatedAttributes, propagateSpanAttributes } from "@svc/core";
import {
  SvcOtelSpanAttributes as A,
  propagateAttributes,
  startActiveObservation,
  startObservation,
} from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { useInMemoryTracing } from "../support/tracing.ts";

const otel = useInMemoryTracing();

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe("propagateAttributes", () => {
  it("writes the trace attributes on the active observation and on every observation started inside", async () => {
    await startActiveObservation("root", async () => {
      await propagateAttributes(
        {
          userId: "u-1",
          sessionId: "s-1",
          tags: ["beta", "eu"],
          version: "2.0.0",
          traceName: "checkout",
          environment: "staging",
          metadata: { plan: "pro" },
        },
        async () => {
          await tick();
          startObservation("child", {}, { asType: "generation" }).end();
        },
      );
    });

    const expected = {
      [A.TRACE_USER_ID]: "u-1",
      [A.TRACE_SESSION_ID]: "s-1",
      [A.TRACE_TAGS]: ["beta", "eu"],
      [A.VERSION]: "2.0.0",
      [A.TRACE_NAME]: "checkout",
      [A.ENVIRONMENT]: "staging",
      [`${A.TRACE_METADATA}.plan`]: "pro",
    };
    expect(otel.span("root").attributes).toMatchObject(expected);
    expect(otel.span("child").attributes).toMatchObject(expected);
  });

  it("returns what the callback returns", async () => {
    expect(propagateAttributes({ userId: "u" }, () => 7)).toBe(7);
    await expect(propagateAttributes({ userId: "u" }, async () => "async")).resolves.toBe("async");
  });

  it("does not leak to siblings started outside the callback", async () => {
    await startActiveObservation("root", async () => {
      const outsideTimer = new Promise<void>((resolve) =>
        setTimeout(() => {
          startObservation("outside-timer").end();
          resolve();
        }, 2),
      );
      const inside = propagateAttributes({ userId: "u-inside" }, async () => {
        await tick();
        startObservation("inside").end();
        await new Promise<void>((resolve) => setTimeout(resolve, 10));
      });
      startObservation("sibling").end();
      await Promise.all([inside, outsideTimer]);
      startObservation("after").end();
    });

    expect(otel.span("inside").attributes[A.TRACE_USER_ID]).toBe("u-inside");
    expect(otel.span("sibling").attributes[A.TRACE_USER_ID]).toBeUndefined();
    expect(otel.span("outside-timer").attributes[A.TRACE_USER_ID]).toBeUndefined();
    expect(otel.span("after").attributes[A.TRACE_USER_ID]).toBeUndefined();
  });

  it("reaches observations started in timer callbacks and async generators inside the callback", async () => {
    async function* steps() {
      for (let i = 0; i < 2; i++) {
        await tick();
        startObservation(`generator-step-${i}`).end();
        yield i;
      }
    }

    await propagateAttributes({ userId: "u-async" }, async () => {
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          startObservation("in-timeout").end();
          resolve();
        }, 1),
      );
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          startObservation("in-immediate").end();
          resolve();
        }),
      );
      for await (const _ of steps()) {
        // consume
      }
    });

    for (const name of ["in-timeout", "in-immediate", "generator-step-0", "generator-step-1"]) {
      expect(otel.span(name).attributes[A.TRACE_USER_ID]).toBe("u-async");
    }
  });

  it("keeps concurrent scopes apart", async () => {
    await Promise.all(
      ["a", "b"].map((user) =>
        propagateAttributes({ userId: user }, async () => {
          await tick();
          startObservation(`work-${user}`).end();
        }),
      ),
    );

    expect(otel.span("work-a").attributes[A.TRACE_USER_ID]).toBe("a");
    expect(otel.span("work-b").attributes[A.TRACE_USER_ID]).toBe("b");
  });

  it("merges nested scopes: tags are added, metadata is merged per key, other values are replaced", () => {
    propagateAttributes({ userId: "outer", tags: ["a", "b"], metadata: { keep: "x", change: { deep: 1 } } }, () => {
      propagateAttributes({ userId: "inner", tags: ["b", "c"], metadata: { change: "flat" } }, () => {
        startObservation("nested").end();
      });
    });

    const attributes = otel.span("nested").attributes;
    expect(attributes[A.TRACE_USER_ID]).toBe("inner");
    expect(attributes[A.TRACE_TAGS]).toEqual(["a", "b", "c"]);
    expect(attributes[`${A.TRACE_METADATA}.keep`]).toBe("x");
    expect(attributes[`${A.TRACE_METADATA}.change`]).toBe("flat");
    expect(attributes[`${A.TRACE_METADATA}.change.deep`]).toBeUndefined();
  });

  it("accepts any JSON-serializable metadata, keeping numbers and booleans and adding dotted paths", () => {
    propagateAttributes({ metadata: { count: 3, beta: true, region: { name: "eu", zone: 2 }, list: [1, "a"] } }, () => {
      startObservation("meta").end();
    });

    expect(otel.span("meta").attributes).toMatchObject({
      [`${A.TRACE_METADATA}.count`]: 3,
      [`${A.TRACE_METADATA}.beta`]: true,
      [`${A.TRACE_METADATA}.region`]: '{"name":"eu","zone":2}',
      [`${A.TRACE_METADATA}.region.name`]: "eu",
      [`${A.TRACE_METADATA}.region.zone`]: 2,
      [`${A.TRACE_METADATA}.list`]: '[1,"a"]',
    });
  });

  it("writes metadata that is not a plain object whole as JSON text", () => {
    propagateAttributes({ metadata: ["a", 1] }, () => startObservation("array-trace-meta").end());
    propagateAttributes({ metadata: 42 }, () => startObservation("number-trace-meta").end());

    expect(otel.span("array-trace-meta").attributes[A.TRACE_METADATA]).toBe('["a",1]');
    expect(otel.span("number-trace-meta").attributes[A.TRACE_METADATA]).toBe("42");
  });

  it("propagates a prompt unless it is a fallback", () => {
    propagateAttributes({ prompt: { name: "qa", version: "4" } }, () => {
      startObservation("linked", {}, { asType: "generation" }).end();
    });
    propagateAttributes({ prompt: { name: "qa", version: 5, isFallback: true } }, () => {
      startObservation("not-linked", {}, { asType: "generation" }).end();
    });

    expect(otel.span("linked").attributes).toMatchObject({
      [A.OBSERVATION_PROMPT_NAME]: "qa",
      [A.OBSERVATION_PROMPT_VERSION]: 4,
    });
    expect(otel.span("not-linked").attributes[A.OBSERVATION_PROMPT_NAME]).toBeUndefined();
  });

  it("lets an observation's own attributes win over propagated ones", () => {
    propagateAttributes({ environment: "staging", prompt: { name: "propagated", version: 1 } }, () => {
      startObservation(
        "own",
        { environment: "production", prompt: { name: "own", version: 2 } },
        { asType: "generation" },
      ).end();
    });

    expect(otel.span("own").attributes).toMatchObject({
      [A.ENVIRONMENT]: "production",
      [A.OBSERVATION_PROMPT_NAME]: "own",
      [A.OBSERVATION_PROMPT_VERSION]: 2,
    });
  });

  it("drops invalid values with one warning each and keeps the valid ones", () => {
    const logs = captureLogs();

    propagateAttributes(
      { userId: "x".repeat(201), sessionId: "ok", environment: "svc-internal", tags: ["good", 5 as never] },
      () => startObservation("validated").end(),
    );

    const attributes = otel.span("validated").attributes;
    expect(attributes[A.TRACE_USER_ID]).toBeUndefined();
    expect(attributes[A.ENVIRONMENT]).toBeUndefined();
    expect(attributes[A.TRACE_SESSION_ID]).toBe("ok");
    expect(attributes[A.TRACE_TAGS]).toEqual(["good"]);
    expect(logs.map((line) => line.message)).toEqual([
      "[Svc SDK] propagateAttributes: userId dropped: must be a non-empty string of at most 200 characters",
      '[Svc SDK] propagateAttributes: environment dropped: must be 1-40 characters of a-z, 0-9, _ or -, not starting with "svc"',
      "[Svc SDK] propagateAttributes: tags dropped: each tag must be a non-empty string of at most 200 characters",
    ]);
  });

  it("writes no baggage unless asked", () => {
    propagateAttributes({ userId: "u" }, () => {
      expect(propagation.getBaggage(context.active())).toBeUndefined();
    });
  });

  it("writes svc_* baggage entries with asBaggage: true", () => {
    propagateAttributes(
      {
        userId: "u-1",
        sessionId: "s-1",
        tags: ["a", "b"],
        metadata: { plan: "pro", seats: 3 },
        version: "1",
        traceName: "t",
        environment: "prod",
        prompt: { name: "p", version: 2 },
        asBaggage: true,
      },
      () => {
        const entries = Object.fromEntries(
          propagation
            .getBaggage(context.active())!
            .getAllEntries()
            .map(([key, entry]) => [key, entry.value]),
        );
        expect(entries).toEqual({
          svc_user_id: "u-1",
          svc_session_id: "s-1",
          svc_tags: "a,b",
          svc_metadata_plan: "pro",
          svc_metadata_seats: "3",
          svc_version: "1",
          svc_trace_name: "t",
          svc_environment: "prod",
          svc_prompt_name: "p",
          svc_prompt_version: "2",
        });
      },
    );
  });

  it("carries baggage to another process through the W3C propagator and reads it back as attributes", () => {
    const carrier: Record<string, string> = {};
    propagateAttributes({ userId: "u-1", tags: ["a", "b"], metadata: { plan: "pro" }, asBaggage: true }, () => {
      propagation.inject(context.active(), carrier);
    });

    const remote = propagation.extract(ROOT_CONTEXT, carrier);

    expect(carrier.baggage).toContain("svc_user_id=u-1");
    expect(getPropagatedAttributes(remote)).toEqual({
      [A.TRACE_USER_ID]: "u-1",
      [A.TRACE_TAGS]: ["a", "b"],
      [`${A.TRACE_METADATA}.plan`]: "pro",
    });
    context.with(remote, () => startObservation("remote-child").end());
    expect(otel.span("remote-child").attributes[A.TRACE_USER_ID]).toBe("u-1");
  });

  it("runs the callback even when nothing valid is given", () => {
    captureLogs();
    expect(propagateAttributes({ userId: "" }, () => "ran")).toBe("ran");
  });
});

describe("getPropagatedAttributes", () => {
  it("returns the wire attributes stored by propagateAttributes", () => {
    propagateAttributes({ userId: "u1", tags: ["a"], metadata: { k: "v" } }, () => {
      expect(getPropagatedAttributes(context.active())).toEqual({
        [A.TRACE_USER_ID]: "u1",
        [A.TRACE_TAGS]: ["a"],
        [`${A.TRACE_METADATA}.k`]: "v",
      });
    });
  });

  it("maps svc_* baggage back to span keys, ignoring svc_trace_id and other entries", () => {
    const bag = propagation.createBaggage({
      svc_session_id: { value: "s" },
      svc_prompt_version: { value: "3" },
      svc_experiment_item_id: { value: "item-1" },
      svc_trace_id: { value: "0af7651916cd43dd8448eb211c80319c" },
      other: { value: "x" },
    });

    expect(getPropagatedAttributes(propagation.setBaggage(ROOT_CONTEXT, bag))).toEqual({
      [A.TRACE_SESSION_ID]: "s",
      [A.OBSERVATION_PROMPT_VERSION]: 3,
      [A.EXPERIMENT_ITEM_ID]: "item-1",
    });
  });

  it("skips a baggage entry without a key or without a value, and maps the others", () => {
    const bag = propagation
      .createBaggage({ svc_session_id: { value: "s" } })
      .setEntry(undefined as unknown as string, { value: "no key" })
      .setEntry("svc_tags", {} as { value: string })
      .setEntry("svc_user_id", { value: "u" });

    expect(getPropagatedAttributes(propagation.setBaggage(ROOT_CONTEXT, bag))).toEqual({
      [A.TRACE_SESSION_ID]: "s",
      [A.TRACE_USER_ID]: "u",
    });
  });

  it("prefers values stored in context over baggage", () => {
    const bag = propagation.createBaggage({ svc_user_id: { value: "from-baggage" } });
    context.with(propagation.setBaggage(context.active(), bag), () => {
      propagateAttributes({ userId: "from-context" }, () => {
        expect(getPropagatedAttributes(context.active())[A.TRACE_USER_ID]).toBe("from-context");
      });
    });
  });

  it("returns an empty object for a context without propagated attributes", () => {
    expect(getPropagatedAttributes(ROOT_CONTEXT)).toEqual({});
  });
});

describe("propagateSpanAttributes", () => {
  it("propagates raw wire attributes to the active span and spans started inside", () => {
    startActiveObservation("item-root", () => {
      propagateSpanAttributes({ [A.EXPERIMENT_ID]: "exp-1", [A.EXPERIMENT_ITEM_ID]: "item-1" }, () => {
        startObservation("task").end();
      });
    });

    for (const name of ["item-root", "task"]) {
      expect(otel.span(name).attributes).toMatchObject({
        [A.EXPERIMENT_ID]: "exp-1",
        [A.EXPERIMENT_ITEM_ID]: "item-1",
      });
    }
  });

  it("merges with attributes propagated by propagateAttributes", () => {
    propagateAttributes({ userId: "u" }, () => {
      propagateSpanAttributes({ [A.EXPERIMENT_NAME]: "run-1" }, () => {
        expect(getPropagatedAttributes(context.active())).toEqual({
          [A.TRACE_USER_ID]: "u",
          [A.EXPERIMENT_NAME]: "run-1",
        });
      });
    });
  });

  it("also writes baggage for keys that have a baggage name when asked", () => {
    propagateSpanAttributes(
      { [A.EXPERIMENT_ID]: "exp-1", "custom.key": "not in baggage" },
      () => {
        const entries = propagation.getBaggage(context.active())!.getAllEntries();
        expect(entries.map(([key, entry]) => [key, entry.value])).toEqual([["svc_experiment_id", "exp-1"]]);
      },
      { asBaggage: true },
    );
  });
});
