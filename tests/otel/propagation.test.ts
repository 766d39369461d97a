import { context, propagation, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcSpanProcessor } from "@svc/otel";
import {
  propagateAttributes,
  setSvcTracerProvider,
  startActiveObservation,
  startObservation,
  updateActiveObservation,
} from "@svc/tracing";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans } from "../support/otel.ts";

// One registered provider (AsyncLocalStorage context) whose processor exports to a fresh sink per test.
let server: TestServer;
let processor: SvcSpanProcessor;
const forwarding = {
  onStart: (span: never, ctx: never) => processor.onStart(span, ctx),
  onEnd: (span: never) => processor.onEnd(span),
  forceFlush: () => processor.forceFlush(),
  shutdown: () => processor.shutdown(),
};
const provider = new NodeTracerProvider({ spanProcessors: [forwarding] });

beforeAll(() => {
  setSvcTracerProvider(null);
  provider.register();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

async function useSink() {
  server = await startServer();
  onTestFinished(server.close);
  processor = new SvcSpanProcessor({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" }, {});
}

function byName() {
  return Object.fromEntries(exportedSpans(server).map((s) => [s.name, attributesOf(s)]));
}

describe("propagated attributes and app roots", () => {
  it("copies propagated attributes onto spans of other instrumentation started inside propagateAttributes", async () => {
    await useSink();

    propagateAttributes({ userId: "u-1", sessionId: "s-1" }, () => {
      trace.getTracer("openinference.instrumentation.openai").startSpan("chat").end();
    });
    await processor.forceFlush();

    expect(byName().chat).toMatchObject({ "user.id": "u-1", "session.id": "s-1" });
  });

  it("reads propagated attributes from svc_ baggage in the parent context", async () => {
    await useSink();
    const bag = propagation.createBaggage({ svc_user_id: { value: "u-bag" }, svc_tags: { value: "a,b" } });

    trace.getTracer("ai").startSpan("llm", {}, propagation.setBaggage(ROOT_CONTEXT, bag)).end();
    await processor.forceFlush();

    expect(byName().llm).toMatchObject({
      "user.id": "u-bag",
      "svc.trace.tags": { values: [{ stringValue: "a" }, { stringValue: "b" }] },
    });
  });

  it("drops an svc_environment from baggage that breaks the environment rule, with one warning", async () => {
    await useSink();
    const logs = captureLogs();
    const bad = propagation.setBaggage(
      ROOT_CONTEXT,
      propagation.createBaggage({ svc_environment: { value: "Production" }, svc_user_id: { value: "u-bag" } }),
    );
    const good = propagation.setBaggage(
      ROOT_CONTEXT,
      propagation.createBaggage({ svc_environment: { value: "production" } }),
    );

    trace.getTracer("ai").startSpan("llm", {}, bad).end();
    context.with(bad, () => startObservation("observation").end());
    trace.getTracer("ai").startSpan("again", {}, bad).end();
    trace.getTracer("ai").startSpan("valid", {}, good).end();
    await processor.forceFlush();

    const spans = byName();
    expect(spans.llm).toMatchObject({ "user.id": "u-bag" });
    expect(spans.llm).not.toHaveProperty("svc.environment");
    expect(spans.observation).not.toHaveProperty("svc.environment");
    expect(spans.again).not.toHaveProperty("svc.environment");
    expect(spans.valid?.["svc.environment"]).toBe("production");
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      '[Svc SDK] baggage: svc_environment dropped: "Production" is not 1-40 characters of a-z, 0-9, _ or -, not starting with "svc"',
    ]);
  });

  it("keeps an attribute the span already has over the propagated value", async () => {
    await useSink();

    propagateAttributes({ userId: "u-1" }, () => {
      trace
        .getTracer("ai")
        .startSpan("llm", { attributes: { "user.id": "own" } })
        .end();
    });
    await processor.forceFlush();

    expect(byName().llm?.["user.id"]).toBe("own");
  });

  it("marks only the first exported span of a trace as app root", async () => {
    await useSink();

    startActiveObservation("root", () => {
      startActiveObservation("child", () => undefined);
    });
    await processor.forceFlush();

    const spans = byName();
    expect(spans.root?.["svc.internal.is_app_root"]).toBe(true);
    expect(spans.child).not.toHaveProperty("svc.internal.is_app_root");
  });

  it("marks an svc span under a filtered-out parent as app root", async () => {
    await useSink();
    const http = trace.getTracer("@opentelemetry/instrumentation-http");

    http.startActiveSpan("GET /", (parent) => {
      startActiveObservation("handler", () => undefined);
      parent.end();
    });
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["handler"]);
    expect(byName().handler?.["svc.internal.is_app_root"]).toBe(true);
  });

  it("does not mark a span as app root when an svc observation of its trace claims the root", async () => {
    await useSink();
    const http = trace.getTracer("@opentelemetry/instrumentation-http");

    startActiveObservation("root", () => {
      http.startActiveSpan("fetch", (middle) => {
        startActiveObservation("inner", () => undefined);
        middle.end();
      });
    });
    await processor.forceFlush();

    expect(byName().root?.["svc.internal.is_app_root"]).toBe(true);
    expect(byName().inner).not.toHaveProperty("svc.internal.is_app_root");
  });

  it("knows an open exported parent without a trace claim, also when given as parentSpanContext", async () => {
    await useSink();

    const root = startObservation("root");
    root.startObservation("child").end();
    startObservation("by-context", undefined, { parentSpanContext: root.otelSpan.spanContext() }).end();
    root.end();
    root.startObservation("after-parent-ended").end();
    await processor.forceFlush();

    const spans = byName();
    expect(spans.root?.["svc.internal.is_app_root"]).toBe(true);
    expect(spans.child).not.toHaveProperty("svc.internal.is_app_root");
    expect(spans["by-context"]).not.toHaveProperty("svc.internal.is_app_root");
    expect(spans["after-parent-ended"]?.["svc.internal.is_app_root"]).toBe(true);
  });

  it("finds the parent through the context for SDKs that only name the parent's id", () => {
    const own = new SvcSpanProcessor({ publicKey: "pk", secretKey: "sk", baseUrl: "http://127.0.0.1:9" });
    const fakeSpan = (spanId: string, parentSpanId?: string) => {
      const spanContext = { traceId: "1".repeat(32), spanId, traceFlags: 1 };
      const set: Record<string, unknown> = {};
      return {
        set,
        span: {
          spanContext: () => spanContext,
          setAttribute: (key: string, value: unknown) => {
            set[key] = value;
          },
          attributes: {},
          instrumentationLibrary: { name: "svc-sdk" },
          parentSpanId,
        },
      };
    };
    const parent = fakeSpan("a".repeat(16));
    own.onStart(parent.span as never, ROOT_CONTEXT);
    const child = fakeSpan("b".repeat(16), "a".repeat(16));
    own.onStart(child.span as never, trace.setSpan(ROOT_CONTEXT, parent.span as never));

    expect(parent.set["svc.internal.is_app_root"]).toBe(true);
    expect(child.set).not.toHaveProperty("svc.internal.is_app_root");
  });
});

describe("the app-root claim in baggage, as the previous major had it", () => {
  const TRACE_ID = "0123456789abcdef0123456789abcdef";
  const claim = (traceId: string) =>
    propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ svc_trace_id: { value: traceId } }));

  it("leaves a local root unmarked when its context claims the root of its trace, and marks it for another trace", async () => {
    await useSink();
    const remoteParent = { traceId: TRACE_ID, spanId: "00f067aa0ba902b7", traceFlags: 1 };

    context.with(claim(TRACE_ID), () =>
      startObservation("claimed", undefined, { parentSpanContext: remoteParent }).end(),
    );
    context.with(claim("f".repeat(32)), () =>
      startObservation("other-claim", undefined, { parentSpanContext: remoteParent }).end(),
    );
    await processor.forceFlush();

    expect(byName().claimed).not.toHaveProperty("svc.internal.is_app_root");
    expect(byName()["other-claim"]?.["svc.internal.is_app_root"]).toBe(true);
  });

  it("leaves a span under a filtered-out parent unmarked when the context claims the root", async () => {
    await useSink();
    const http = trace.getTracer("@opentelemetry/instrumentation-http");
    const remoteParent = trace.setSpanContext(claim(TRACE_ID), {
      traceId: TRACE_ID,
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
    });

    context.with(remoteParent, () =>
      http.startActiveSpan("GET /", (parent) => {
        startObservation("handler").end();
        parent.end();
      }),
    );
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["handler"]);
    expect(byName().handler).not.toHaveProperty("svc.internal.is_app_root");
  });

  it("never turns the claim into trace metadata or another attribute", async () => {
    await useSink();
    const bag = propagation.createBaggage({ svc_trace_id: { value: TRACE_ID }, svc_metadata_team: { value: "a" } });

    context.with(propagation.setBaggage(ROOT_CONTEXT, bag), () => startObservation("with-claim").end());
    await processor.forceFlush();

    const attributes = byName()["with-claim"] ?? {};
    expect(attributes["svc.trace.metadata.team"]).toBe("a");
    expect(Object.keys(attributes).filter((key) => key.includes("trace_id") || key.endsWith("metadata"))).toEqual([]);
    expect(Object.values(attributes)).not.toContain(TRACE_ID);
  });
});

describe("repeated warnings of @svc/tracing", () => {
  it("are summarised with their count by @svc/tracing itself once the interval has passed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const logs = captureLogs();

    for (let i = 0; i < 3; i++) updateActiveObservation({ output: "no observation is active here" });
    await vi.advanceTimersByTimeAsync(10_000);

    const lines = logs.filter((l) => l.message.includes("updateActiveObservation")).map((l) => l.message);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/happened 2 more time\(s\)/);
  });
});
