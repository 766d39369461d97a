import * as tracing from "@svc/tracing";
import { describe, expect, expectTypeOf, it } from "vitest";

describe("@svc/tracing exports", () => {
  it.each([
    "startObservation",
    "startActiveObservation",
    "observe",
    "updateActiveObservation",
    "setActiveTraceAsPublic",
    "propagateAttributes",
    "createObservationAttributes",
    "setSvcTracerProvider",
    "getSvcTracerProvider",
    "getSvcTracer",
    "createTraceId",
    "getActiveTraceId",
    "getActiveSpanId",
  ])("exports the function %s", (name) => {
    expect(typeof (tracing as Record<string, unknown>)[name]).toBe("function");
  });

  it.each(["propagateSpanAttributes", "getPropagatedAttributes", "hasTraceIdClaim", "RepeatLog", "serializeValue"])(
    "does not export the internal %s",
    (name) => {
      expect((tracing as Record<string, unknown>)[name]).toBeUndefined();
    },
  );

  it("exports the ten observation classes", () => {
    for (const name of [
      "SvcSpan",
      "SvcGeneration",
      "SvcEvent",
      "SvcAgent",
      "SvcTool",
      "SvcChain",
      "SvcRetriever",
      "SvcEvaluator",
      "SvcGuardrail",
      "SvcEmbedding",
    ]) {
      expect(typeof (tracing as Record<string, unknown>)[name], name).toBe("function");
    }
  });

  it.each(["setActiveTraceIO", "createTraceAttributes", "setTraceIO", "SvcTraceAttributes"])(
    "does not export the removed %s",
    (name) => {
      expect(name in tracing).toBe(false);
    },
  );

  it("does not export the removed trace-attributes type (enforced by pnpm typecheck)", () => {
    // @ts-expect-error SvcTraceAttributes was removed in v6; the type checker fails here if it comes back.
    type Removed = import("@svc/tracing").SvcTraceAttributes;

    expectTypeOf<Removed>().toBeAny();
    expect("SvcTraceAttributes" in tracing).toBe(false);
  });

  it("gives observations no setTraceIO method", () => {
    const span = tracing.startObservation("no-trace-io");
    span.end();

    expect("setTraceIO" in span).toBe(false);
  });
});
