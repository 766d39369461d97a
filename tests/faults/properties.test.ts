import { context, propagation, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ChatPromptClient, SvcClient, TextPromptClient } from "@svc/client";
import { CallbackHandler } from "@svc/langchain";
import { SvcSpanProcessor } from "@svc/otel";
import {
  createObservationAttributes,
  createTraceId,
  LogLevel,
  observe,
  propagateAttributes,
  setActiveTraceAsPublic,
  setSvcTracerProvider,
  startActiveObservation,
  startObservation,
  updateActiveObservation,
} from "@svc/tracing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { type CapturedLog, captureLogs } from "../support/logs.ts";
import { exportedSpans } from "../support/otel.ts";

const SECRET = "sk-prop-4c1d8e2f9a7b3c5d";
const CREDENTIAL = Buffer.from(`pk-prop:${SECRET}`).toString("base64");
const RUNS = 150;

// ---- Hostile values: what fast-check makes of JavaScript, and what it does not make by itself. ----

function throwingGetter(inner: unknown): object {
  return Object.defineProperty({ kept: inner }, "broken", {
    enumerable: true,
    get() {
      throw new Error(`getter exploded, key ${SECRET}`);
    },
  });
}

function throwingProxy(inner: unknown): object {
  const fail = () => {
    throw new Error(`proxy trap, authorization Basic ${CREDENTIAL}`);
  };
  // Symbol keys answer as usual: fast-check itself reads some from the values it makes.
  const byName =
    <R>(trap: (target: object, key: symbol) => R) =>
    (target: object, key: string | symbol): R =>
      typeof key === "symbol" ? trap(target, key) : fail();
  return new Proxy(
    { inner },
    {
      get: byName((target, key) => Reflect.get(target, key)),
      has: byName((target, key) => Reflect.has(target, key)),
      ownKeys: fail,
      getPrototypeOf: fail,
      getOwnPropertyDescriptor: fail,
    },
  );
}

function cyclic(inner: unknown): object {
  const node: Record<string, unknown> = { inner };
  node.self = node;
  node.list = [node, inner];
  return node;
}

function unprintable(): object {
  return {
    toString() {
      throw new Error(`no text: ${SECRET}`);
    },
    toJSON() {
      throw new Error(`no JSON: ${SECRET}`);
    },
    [Symbol.toPrimitive]() {
      throw new Error(`no primitive: ${SECRET}`);
    },
  };
}

function errorWithCycle(message: string): Error {
  const error = new Error(message);
  (error as { cause?: unknown }).cause = error;
  return error;
}

/**
 * Values that carry the secret key or the Basic credential made from it, as a user's data can: in text, in keys, in
 * URLs (as the password and in the query), in errors (message and cause). Whatever the SDK logs about them must
 * show neither.
 */
const secretText: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ maxLength: 20 }),
    fc.constantFrom(SECRET, CREDENTIAL, `Basic ${CREDENTIAL}`),
    fc.string({ maxLength: 20 }),
  )
  .map(([before, secret, after]) => `${before}${secret}${after}`);

const secretUrl: fc.Arbitrary<string> = fc.constantFrom(
  `https://pk-prop:${SECRET}@svc.example/api/public/otel/v1/traces`,
  `http://127.0.0.1:1/api/public/media/m?secretKey=${SECRET}`,
  `https://svc.example/?authorization=Basic%20${CREDENTIAL}`,
  `data:text/plain;base64,${CREDENTIAL}`,
  `@@@svcMedia:type=image/png|id=${SECRET}|source=base64_data_uri@@@`,
);

const secretBearing: fc.Arbitrary<unknown> = fc.oneof(
  secretText,
  secretUrl,
  secretText.map((message) => new Error(message)),
  fc.tuple(fc.string(), secretText).map(([message, cause]) => new TypeError(message, { cause: new Error(cause) })),
  fc.tuple(secretText, secretUrl).map(([key, url]) => ({ [key]: url, [SECRET]: { url, secretKey: SECRET } })),
  secretUrl.filter((url) => URL.canParse(url)).map((url) => new URL(url)),
);

const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  secretBearing,
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    stringUnit: "binary",
    maxDepth: 3,
  }),
  fc.string({ unit: "binary", minLength: 0, maxLength: 50 }).map((s) => `\uD800${s}\uDFFF`),
  fc.constantFrom(
    Symbol("s"),
    () => "fn",
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    10n ** 30n,
    Buffer.alloc(1024),
    new Float64Array(8),
    new DataView(new ArrayBuffer(4)),
  ),
  fc.string().map((m) => new TypeError(m)),
  fc.string().map(errorWithCycle),
  fc.constant(null).map(unprintable),
);

/** Values past the size limits: rare, since each one costs the export a few megabytes. */
const huge: fc.Arbitrary<unknown> = fc.constantFrom(
  new Uint8Array(2 * 1024 * 1024),
  "x".repeat(1_050_000),
  "\u{1F600}".repeat(525_000),
);

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 30, arbitrary: hostileLeaf },
  { weight: 1, arbitrary: huge },
  { weight: 10, arbitrary: hostileLeaf.map(throwingGetter) },
  { weight: 10, arbitrary: hostileLeaf.map(throwingProxy) },
  { weight: 10, arbitrary: hostileLeaf.map(cyclic) },
  {
    weight: 10,
    arbitrary: fc.dictionary(fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), secretText), hostileLeaf, {
      maxKeys: 5,
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      input: hostileLeaf,
      output: hostileLeaf,
      metadata: hostileLeaf,
      model: hostileLeaf,
      level: hostileLeaf,
    }),
  },
);

// ---- One server, one processor, one client for the whole suite. ----

let server: TestServer;
let processor: SvcSpanProcessor;
let provider: NodeTracerProvider;
let svc: SvcClient;
let canaries = 0;

beforeAll(async () => {
  server = await startServer();
  const keys = { baseUrl: server.url, publicKey: "pk-prop", secretKey: SECRET };
  processor = new SvcSpanProcessor({ ...keys, flushTimeout: 5 }, {});
  provider = new NodeTracerProvider({ spanProcessors: [processor] });
  provider.register();
  setSvcTracerProvider(null);
  svc = new SvcClient({ ...keys, flushTimeout: 5 });
});

afterAll(async () => {
  await Promise.all([svc.shutdown(), provider.shutdown()]);
  context.disable();
  trace.disable();
  propagation.disable();
  await server.close();
});

/** Calls `fn`; a throw fails the property, a returned promise is awaited and must not reject. */
async function neverThrows(what: string, fn: () => unknown): Promise<void> {
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    throw new Error(`${what} threw: ${String((error as Error)?.message)}`);
  }
  if (result instanceof Promise) {
    await result.catch((error: unknown) => {
      throw new Error(`${what} rejected: ${String((error as Error)?.message)}`);
    });
  }
}

/**
 * After the hostile calls: a plain span and a plain score still reach the server, and no log line showed the secret
 * key or the credential, though the values logged about carried them. (The request bodies carry the values as the
 * user gave them: data, not output of the SDK.)
 */
async function canaryDelivered(logs: CapturedLog[]): Promise<void> {
  // What the runs queued first: the queues are bounded, and a burst of huge values may have filled them.
  await Promise.all([processor.forceFlush(), svc.flush()]);
  const name = `canary-${++canaries}`;
  startObservation(name, { input: "canary" }).end();
  svc.score.create({ name, value: 1, traceId: "canary-trace" });
  await Promise.all([processor.forceFlush(), svc.flush()]);
  expect(exportedSpans(server).map((s) => s.name)).toContain(name);
  const scores = server.seen
    .filter((r) => r.path === "/api/public/scores")
    .flatMap((r) => r.json as { name: string }[]);
  expect(scores.map((s) => s.name)).toContain(name);
  const printed = logs.map((l) => l.message).join("\n");
  expect(printed).not.toContain(SECRET);
  expect(printed).not.toContain(CREDENTIAL);
}

/**
 * Runs `run` on RUNS generated tuples. The report names the seed and the failure but does not print the values:
 * printing them is what some of them are made to break.
 */
const property = (arbitrary: fc.Arbitrary<unknown[]>, run: (values: unknown[]) => Promise<void>) =>
  fc.assert(fc.asyncProperty(arbitrary, run), {
    numRuns: RUNS,
    reporter: (details) => {
      if (!details.failed) return;
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : "unknown failure";
      throw new Error(
        `failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"): ${cause}`,
      );
    },
  });

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "not an error";
}

/** How a call settled: its value or its error, for comparing a wrapped function with the plain one. */
async function settled(fn: () => unknown): Promise<{ ok: boolean; value: unknown }> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, value: error };
  }
}

describe("hostile values at every public input", () => {
  it("tracing: observations, updates, ends, active observations, observe, propagation", async () => {
    const logs = captureLogs(LogLevel.DEBUG);
    await property(fc.array(hostile, { minLength: 4, maxLength: 4 }), async ([a, b, c, d]) => {
      await neverThrows("startObservation", () => {
        const observation = startObservation(a as string, b as never, c as never);
        observation.update(c as never);
        observation.update({ input: a, output: b, metadata: c, statusMessage: d } as never);
        observation.startObservation(d as string, a as never, { asType: "generation" }).end(b as never);
        observation.end(d as never);
      });
      await neverThrows("startActiveObservation", () =>
        startActiveObservation(a as string, (span) => {
          updateActiveObservation(b as never, c as never);
          setActiveTraceAsPublic();
          span.update({ metadata: d } as never);
        }),
      );
      await neverThrows("startActiveObservation with a value for a callback", () =>
        startActiveObservation("x", a as never, b as never),
      );
      await neverThrows("observe", () => observe((x: unknown, y: unknown) => [x, y], a as never)(b, c));
      // An async function that returns a value with a throwing `then` rejects by itself: observe adds nothing.
      const echo = async (x: unknown) => x;
      const plain = await settled(() => echo(d));
      const observed = await settled(() => observe(echo, { name: "async" })(d));
      expect(observed.ok).toBe(plain.ok);
      if (!plain.ok) expect(messageOf(observed.value)).toBe(messageOf(plain.value));
      await neverThrows("propagateAttributes", () =>
        propagateAttributes(a as never, () => startObservation("inside", { metadata: b } as never).end()),
      );
      await neverThrows("propagateAttributes with metadata and ids", () =>
        propagateAttributes({ userId: a, sessionId: b, tags: c, metadata: d, asBaggage: true } as never, () =>
          startObservation("inside").end(),
        ),
      );
      await neverThrows("createObservationAttributes", () => createObservationAttributes(a as never, b as never));
      await neverThrows("createTraceId", () => createTraceId(a as never));
    });
    await canaryDelivered(logs);
  });

  it("scores: create, observation, trace, activeObservation, activeTrace", async () => {
    const logs = captureLogs(LogLevel.DEBUG);
    const values = fc.tuple(hostile, hostile, hostile, secretText);
    await property(values, async ([a, b, c, secretName]) => {
      const span = {
        otelSpan: trace.wrapSpanContext({ traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 1 }),
      };
      await neverThrows("score.create", () => svc.score.create(a as never));
      await neverThrows("score.create with fields", () =>
        svc.score.create({ name: "n", value: 1, traceId: "t", metadata: a, comment: b, id: c } as never),
      );
      await neverThrows("score.create named with a secret", () =>
        svc.score.create({ name: secretName, value: a, traceId: b } as never),
      );
      await neverThrows("score.observation", () => svc.score.observation(b as never, c as never));
      await neverThrows("score.observation on a span", () => svc.score.observation(span, a as never));
      await neverThrows("score.trace", () => svc.score.trace(span, { name: "n", value: 2, metadata: b } as never));
      await neverThrows("score.activeObservation", () => svc.score.activeObservation(c as never));
      await neverThrows("score.activeTrace", () => svc.score.activeTrace(a as never));
    });
    await canaryDelivered(logs);
  });

  it("prompts: compile and the LangChain form of text and chat prompts", async () => {
    const logs = captureLogs(LogLevel.DEBUG);
    const meta = { name: "p", version: 1, config: {}, labels: [], tags: [] };
    const text = new TextPromptClient({ ...meta, type: "text", prompt: "A {{a}} {{{b}}} {{#c}}[{{.}}]{{/c}} {{d.e}}" });
    const chat = new ChatPromptClient({
      ...meta,
      type: "chat",
      prompt: [
        { role: "system", content: "S {{a}} {{b}}", type: "chatmessage" },
        { type: "placeholder", name: "history" },
      ],
    });
    await property(fc.array(hostile, { minLength: 3, maxLength: 3 }), async ([a, b, c]) => {
      await neverThrows("text compile", () => text.compile(a as never));
      await neverThrows("text compile with values", () => text.compile({ a, b, c, d: a } as never));
      await neverThrows("chat compile", () => chat.compile(b as never, c as never));
      await neverThrows("chat compile with placeholders", () =>
        chat.compile({ a, b } as never, { history: c } as never),
      );
      await neverThrows("chat getLangchainPrompt", () => chat.getLangchainPrompt(a as never));
    });
    await canaryDelivered(logs);
  });

  it("media: resolveReferences", async () => {
    const logs = captureLogs(LogLevel.DEBUG);
    await property(fc.array(hostile, { minLength: 2, maxLength: 2 }), async ([a, b]) => {
      await neverThrows("resolveReferences", () => svc.media.resolveReferences(a as never));
      // Resolving a promise with a value whose `then` throws rejects it, whoever returns the value: a value
      // without references comes back as given, so it settles as `Promise.resolve(value)` does.
      const plain = await settled(() => Promise.resolve(a));
      const resolved = await settled(() =>
        svc.media.resolveReferences({ obj: a, resolveWith: "base64DataUri", maxDepth: b } as never),
      );
      expect(resolved.ok).toBe(plain.ok);
      if (!plain.ok) expect(messageOf(resolved.value)).toBe(messageOf(plain.value));
    });
    await canaryDelivered(logs);
  });

  it("LangChain: the handler's constructor and every callback", async () => {
    const logs = captureLogs(LogLevel.DEBUG);
    await property(fc.array(hostile, { minLength: 4, maxLength: 4 }), async ([a, b, c, d]) => {
      const handler = await (async () => {
        let made: CallbackHandler | undefined;
        await neverThrows("new CallbackHandler", () => {
          made = new CallbackHandler(a as never);
        });
        return made as CallbackHandler;
      })();
      const runId = crypto.randomUUID();
      const child = crypto.randomUUID();
      const h = handler as unknown as Record<string, (...args: unknown[]) => unknown>;
      const calls: [string, unknown[]][] = [
        ["handleChainStart", [b, c, runId, undefined, d, a, "chain", b]],
        ["handleChatModelStart", [a, [[b]], child, runId, c, d, a, b]],
        ["handleLLMNewToken", [a, b, child]],
        ["handleLLMEnd", [c, child]],
        ["handleLLMStart", [d, a, crypto.randomUUID(), runId, b, c, d]],
        ["handleLLMError", [a, crypto.randomUUID()]],
        ["handleToolStart", [a, b, crypto.randomUUID(), runId, c, d, a]],
        ["handleToolEnd", [b, crypto.randomUUID()]],
        ["handleRetrieverStart", [c, d, crypto.randomUUID(), runId, a, b, c]],
        ["handleRetrieverEnd", [a, crypto.randomUUID()]],
        ["handleAgentAction", [b, crypto.randomUUID(), runId]],
        ["handleAgentEnd", [c, crypto.randomUUID()]],
        ["handleChainError", [d, crypto.randomUUID()]],
        ["handleChainEnd", [a, runId]],
      ];
      for (const [method, args] of calls) await neverThrows(method, () => h[method]?.apply(handler, args));
    });
    await canaryDelivered(logs);
  });
});
