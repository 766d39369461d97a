import { context, trace } from "@opentelemetry/api";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans, otlpRequests, svcProvider, waitForOtlpRequests } from "../support/otel.ts";

async function sink() {
  const server = await startServer();
  onTestFinished(server.close);
  return server;
}

/** A reply that waits until the test opens the gate. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { gate, open };
}

function settled(promise: Promise<unknown>) {
  const state = { done: false };
  void promise.then(() => {
    state.done = true;
  });
  return state;
}

describe("batching", () => {
  it("sends a request as soon as flushAt spans have ended, without waiting for the interval", async () => {
    const server = await sink();
    const { svc } = svcProvider(server, { flushAt: 3, flushInterval: 3600 });

    for (const name of ["a", "b", "c"]) svc.startSpan(name).end();
    await waitForOtlpRequests(server, 1);

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["a", "b", "c"]);
  });

  it("splits the queue into requests of at most flushAt spans", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server, { flushAt: 2 });

    for (const name of ["a", "b", "c", "d", "e"]) svc.startSpan(name).end();
    await processor.forceFlush();

    const sizes = otlpRequests(server).map((r) => exportedSpansOf(r.json).length);
    expect(sizes.sort()).toEqual([1, 2, 2]);
  });

  it("sends a partial batch when the flush interval elapses", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const server = await sink();
    const { svc } = svcProvider(server, { flushAt: 100, flushInterval: 2 });

    svc.startSpan("a").end();
    svc.startSpan("b").end();
    await vi.advanceTimersByTimeAsync(1900);
    expect(otlpRequests(server)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    vi.useRealTimers();
    await waitForOtlpRequests(server, 1);

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["a", "b"]);
  });

  it("sends each span on its own as it ends in immediate mode", async () => {
    const server = await sink();
    const { svc } = svcProvider(server, { exportMode: "immediate", flushInterval: 3600 });

    svc.startSpan("a").end();
    await waitForOtlpRequests(server, 1);
    svc.startSpan("b").end();
    await waitForOtlpRequests(server, 2);

    expect(otlpRequests(server).map((r) => exportedSpansOf(r.json).map((s) => s.name))).toEqual([["a"], ["b"]]);
  });

  it("keeps at most maxConcurrentExports requests in flight", async () => {
    const server = await sink();
    let active = 0;
    let peak = 0;
    server.reply(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 20));
      active--;
      return { status: 200, json: {} };
    });
    const { svc, processor } = svcProvider(server, { flushAt: 1, maxConcurrentExports: 2 });

    for (let i = 0; i < 6; i++) svc.startSpan(`s${i}`).end();
    await processor.forceFlush();

    expect(exportedSpans(server)).toHaveLength(6);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it("overlaps the requests of several batches while it encodes and compresses them one at a time", async () => {
    const server = await sink();
    let active = 0;
    let peak = 0;
    server.reply(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 50));
      active--;
      return { status: 200, json: {} };
    });
    const { svc, processor } = svcProvider(server, { flushAt: 1, maxConcurrentExports: 3 });

    for (let i = 0; i < 6; i++) svc.startSpan(`s${i}`).end();
    await processor.forceFlush();

    expect(
      exportedSpans(server)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["s0", "s1", "s2", "s3", "s4", "s5"]);
    expect(otlpRequests(server).every((r) => r.headers["content-encoding"] === "gzip")).toBe(true);
    expect(peak).toBe(3);
  });

  it("drops spans beyond maxQueueSize and logs the loss at error level", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, { flushAt: 10, maxQueueSize: 2, flushInterval: 3600 });

    for (const name of ["a", "b", "c", "d"]) svc.startSpan(name).end();
    await processor.shutdown();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["a", "b"]);
    const errors = logs.filter((l) => l.level === "error").map((l) => l.message);
    expect(errors[0]).toMatch(/spans dropped, the queue is full: 1 span: 2 spans \(\d+ KiB\) held, limits 2 spans/);
    expect(errors[1]).toMatch(/spans dropped, the queue is full: 1 more spans since the last message \(2 in total\)/);
  });

  it("loses no span of a 20,000-span burst with the default settings", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server);

    for (let i = 0; i < 20_000; i++) svc.startSpan("burst").end();
    await processor.forceFlush();

    expect(exportedSpans(server)).toHaveLength(20_000);
    expect(Math.max(...otlpRequests(server).map((r) => exportedSpansOf(r.json).length))).toBe(512);
  });
});

describe("flush and shutdown", () => {
  it("resolves forceFlush only after the slow sink has answered every request", async () => {
    const server = await sink();
    const { gate, open } = gated();
    server.reply(async () => {
      await gate;
      return { status: 200, json: {} };
    });
    const { svc, processor } = svcProvider(server, { flushAt: 2 });
    for (const name of ["a", "b", "c"]) svc.startSpan(name).end();

    const flush = settled(processor.forceFlush());
    await waitForOtlpRequests(server, 2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(flush.done).toBe(false);
    open();
    await vi.waitFor(() => expect(flush.done).toBe(true), { timeout: 5000, interval: 5 });

    expect(
      exportedSpans(server)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["a", "b", "c"]);
  });

  it("resolves shutdown only after queued spans are exported, and counts spans ended afterwards", async () => {
    const logs = captureLogs();
    const server = await sink();
    server.reply(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { status: 200, json: {} };
    });
    const { svc, processor } = svcProvider(server, { flushInterval: 3600 });
    svc.startSpan("before").end();

    await processor.shutdown();
    expect(exportedSpans(server).map((s) => s.name)).toEqual(["before"]);
    svc.startSpan("after").end();
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["before"]);
    expect(logs.some((l) => l.level === "error" && l.message.includes('"after" ended after shutdown()'))).toBe(true);
  });

  it("flushes and shuts the exporter down once, however often shutdown is called", async () => {
    const server = await sink();
    const exported: string[] = [];
    let shutdowns = 0;
    const exporter = {
      export: (spans: { name: string }[], done: (result: { code: number }) => void) => {
        exported.push(...spans.map((s) => s.name));
        done({ code: 0 });
      },
      shutdown: async () => {
        shutdowns++;
      },
    };
    const { svc, processor } = svcProvider(server, { exporter, flushInterval: 3600 });
    svc.startSpan("a").end();

    const first = processor.shutdown();
    const second = processor.shutdown();
    await Promise.all([first, second, processor.shutdown()]);

    expect(second).toBe(first);
    expect(exported).toEqual(["a"]);
    expect(shutdowns).toBe(1);
  });

  it("leaves no flush timer behind after shutdown", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const exporter = {
      export: (_: unknown[], done: (r: { code: number }) => void) => done({ code: 0 }),
      shutdown: async () => undefined,
    };
    const { svc, processor } = svcProvider(await sink(), { exporter, flushInterval: 3600 });
    svc.startSpan("a").end();
    expect(vi.getTimerCount()).toBe(1);

    await processor.shutdown();

    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not keep the process alive while a partial batch waits for the flush interval", async () => {
    const server = await sink();
    const { svc } = svcProvider(server, { flushInterval: 3600 });
    const before = refedTimers();

    svc.startSpan("waiting").end();

    expect(refedTimers()).toBe(before);
  });

  it("does not keep the process alive while a user-supplied exporter has not answered", async () => {
    const server = await sink();
    const pending: ((result: { code: number }) => void)[] = [];
    let exportCalled = () => {};
    const called = new Promise<void>((resolve) => {
      exportCalled = resolve;
    });
    const exporter = {
      export: (_spans: unknown[], done: (result: { code: number }) => void) => {
        pending.push(done);
        exportCalled();
      },
      shutdown: async () => undefined,
    };
    const { svc } = svcProvider(server, { exporter, exportMode: "immediate" });
    onTestFinished(() => {
      for (const done of pending) done({ code: 0 });
    });
    const before = refedTimers();

    svc.startSpan("slow").end();
    await called;

    expect(pending).toHaveLength(1);
    expect(refedTimers()).toBe(before);
  });

  it("resolves forceFlush when the server rejects the keys, logging the lost spans", async () => {
    const logs = captureLogs();
    const server = await startServer(() => ({ status: 401, json: { message: "bad key" } }));
    onTestFinished(server.close);
    const { svc, processor } = svcProvider(server);

    svc.startSpan("a").end();
    await processor.forceFlush();

    expect(
      logs.some(
        (l) =>
          l.level === "error" &&
          /refused the keys: 1 span: HTTP 401 from .*\. Check the public and secret keys/.test(l.message),
      ),
    ).toBe(true);
  });
});

describe("span content", () => {
  it("applies the mask to input, output and metadata before export and leaves other attributes alone", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server, { mask: ({ data }) => `masked(${String(data)})` });

    svc
      .startSpan("work", {
        attributes: {
          "svc.observation.input": "in",
          "svc.observation.output": "out",
          "svc.observation.metadata.user": "u",
          "svc.trace.input": "tin",
          "svc.observation.model.name": "m",
        },
      })
      .end();
    await processor.forceFlush();

    expect(attributesOf(exportedSpans(server)[0]!)).toMatchObject({
      "svc.observation.input": "masked(in)",
      "svc.observation.output": "masked(out)",
      "svc.observation.metadata.user": "masked(u)",
      "svc.trace.input": "masked(tin)",
      "svc.observation.model.name": "m",
    });
  });

  it("masks and scans for media when the batch is sent, not in span.end()", async () => {
    const server = await sink();
    const masked: string[] = [];
    const { svc, processor } = svcProvider(server, {
      mask: ({ data }) => {
        masked.push(String(data));
        return "***";
      },
    });

    const span = svc.startSpan("work", {
      attributes: { "svc.observation.input": "secret", "svc.observation.output": "data:image/png;base64,AAAA" },
    });
    span.end();
    expect(masked).toEqual([]);
    await processor.forceFlush();

    expect(masked.sort()).toEqual(["data:image/png;base64,AAAA", "secret"]);
    expect(attributesOf(exportedSpans(server)[0]!)).toMatchObject({
      "svc.observation.input": "***",
      "svc.observation.output": "***",
    });
  });

  it("exports a span whose mask throws, with a fixed marker in place of the value, and logs the error", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, {
      mask: () => {
        throw new Error("mask bug");
      },
    });

    svc.startSpan("work", { attributes: { "svc.observation.input": "secret" } }).end();
    await processor.forceFlush();

    expect(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"]).toBe(
      "<fully masked due to failed mask function>",
    );
    expect(logs.some((l) => l.level === "error" && l.message.includes("mask bug"))).toBe(true);
  });

  it("exports a fixed marker and logs the error when the mask returns a value that cannot be serialized", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, { mask: () => ({ big: 1n }) });

    svc.startSpan("work", { attributes: { "svc.observation.output": "secret" } }).end();
    await processor.forceFlush();

    expect(attributesOf(exportedSpans(server)[0]!)["svc.observation.output"]).toBe(
      "<fully masked due to failed mask function>",
    );
    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      expect.stringMatching(
        /mask function failed; the value is exported as a fixed marker \(svc.observation.output\).*cannot be serialized.*BigInt/,
      ),
    ]);
  });

  it("logs a mask that throws for every span once, then the number of repeats at shutdown", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, {
      mask: () => {
        throw new Error("mask bug");
      },
    });

    for (const name of ["a", "b", "c"]) svc.startSpan(name, { attributes: { "svc.observation.input": "x" } }).end();
    await processor.shutdown();

    expect(exportedSpans(server)).toHaveLength(3);
    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      expect.stringContaining("mask function failed; the value is exported as a fixed marker (svc.observation.input)"),
      expect.stringContaining("mask function failed; the value is exported as a fixed marker: happened 2 more time(s)"),
    ]);
  });

  it("exports svc, gen_ai and known-instrumentation spans and drops the rest by default", async () => {
    const server = await sink();
    const { svc, tracer, processor } = svcProvider(server);

    svc.startSpan("svc").end();
    tracer("my-db")
      .startSpan("genai", { attributes: { "gen_ai.system": "x" } })
      .end();
    tracer("openinference.instrumentation.langchain").startSpan("known").end();
    tracer("@opentelemetry/instrumentation-http").startSpan("http").end();
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["svc", "genai", "known"]);
  });

  it("lets shouldExportSpan replace the default filter", async () => {
    const server = await sink();
    const { svc, tracer, processor } = svcProvider(server, {
      shouldExportSpan: ({ otelSpan }) => otelSpan.name.startsWith("keep"),
    });

    svc.startSpan("drop-me").end();
    tracer("@opentelemetry/instrumentation-http").startSpan("keep-http").end();
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["keep-http"]);
  });

  it("asks a custom shouldExportSpan about svc spans at their start, for the app-root mark", async () => {
    const server = await sink();
    const { svc, processor } = svcProvider(server, {
      shouldExportSpan: ({ otelSpan }) => otelSpan.attributes.keep === true,
    });

    // The parent gains the attribute the filter looks for only after its start: it was not expected then.
    const parent = svc.startSpan("parent");
    parent.setAttribute("keep", true);
    const child = svc.startSpan("child", { attributes: { keep: true } }, trace.setSpan(context.active(), parent));
    child.end();
    parent.end();
    await processor.forceFlush();

    const byName = Object.fromEntries(exportedSpans(server).map((s) => [s.name, attributesOf(s)]));
    expect(Object.keys(byName).sort()).toEqual(["child", "parent"]);
    expect(byName.child?.["svc.internal.is_app_root"]).toBe(true);
    expect(byName.parent?.["svc.internal.is_app_root"]).toBeUndefined();
  });

  it("keeps exporting other spans when shouldExportSpan throws, and logs the error", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, {
      shouldExportSpan: ({ otelSpan }) => {
        if (otelSpan.name === "bad") throw new Error("filter bug");
        return true;
      },
    });

    svc.startSpan("bad").end();
    svc.startSpan("good").end();
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["good"]);
    expect(logs.some((l) => l.level === "error" && l.message.includes("filter bug"))).toBe(true);
  });

  it("logs once a throw of shouldExportSpan at a span's start, and asks again with the ended span", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, {
      shouldExportSpan: ({ otelSpan }) => {
        if (!otelSpan.ended) throw new Error("asked before the end");
        return true;
      },
    });

    svc.startSpan("first").end();
    svc.startSpan("second").end();
    await processor.forceFlush();

    expect(exportedSpans(server).map((s) => s.name)).toEqual(["first", "second"]);
    expect(logs.filter((l) => l.message.includes("asked before the end"))).toEqual([
      {
        level: "warn",
        message:
          '[Svc SDK] SvcSpanProcessor: shouldExportSpan threw at a span\'s start (asked whether it is an app root); the span is asked again when it ends: "first": asked before the end',
      },
    ]);
  });

  it("stamps environment and release on every span, keeping an environment the span already has", async () => {
    const server = await sink();
    const { svc, tracer, processor } = svcProvider(server, { release: "r-7" }, { SVC_TRACING_ENVIRONMENT: "staging" });

    svc.startSpan("plain").end();
    tracer("ai").startSpan("llm").end();
    svc.startSpan("experiment", { attributes: { "svc.environment": "sdk-experiment" } }).end();
    await processor.forceFlush();

    const byName = Object.fromEntries(exportedSpans(server).map((s) => [s.name, attributesOf(s)]));
    expect(byName.plain).toMatchObject({ "svc.environment": "staging", "svc.release": "r-7" });
    expect(byName.llm).toMatchObject({ "svc.environment": "staging", "svc.release": "r-7" });
    expect(byName.experiment).toMatchObject({ "svc.environment": "sdk-experiment", "svc.release": "r-7" });
  });
});

/** Timers that keep the process alive (unref'd ones are not listed). */
function refedTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
}

function exportedSpansOf(json: unknown): { name: string }[] {
  const body = json as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] };
  return body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
}

describe("debug lines", () => {
  it("logs one line per export with its spans, bytes and time", async () => {
    const logs = captureLogs();
    const server = await sink();
    const { svc, processor } = svcProvider(server, { flushAt: 2, flushInterval: 3600 });

    for (const name of ["a", "b", "c"]) svc.startSpan(name).end();
    await processor.forceFlush();

    const exports = logs.filter((l) => l.level === "debug" && l.message.includes(": exported "));
    // The two sends run side by side, so their lines come in the order the server answers.
    expect(exports.map((l) => l.message).sort()).toEqual([
      expect.stringMatching(/^\[Svc SDK\] SvcSpanProcessor: exported 1 span \(\d+ bytes, \d+ ms\)$/),
      expect.stringMatching(/^\[Svc SDK\] SvcSpanProcessor: exported 2 spans \(\d+ bytes, \d+ ms\)$/),
    ]);
  });
});
