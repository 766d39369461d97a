import { context, createContextKey, ROOT_CONTEXT, type TracerProvider, trace } from "@opentelemetry/api";
import { flushWatched, getGlobalLogger, setSvcTracerProvider, setTransportInterceptor } from "@svc/core";
import type { MaskFunction, ShouldExportSpan } from "../config.js";
import { type SpanProcessorHealth, SvcSpanProcessor } from "../span-processor.js";
import { AsyncStorageContextManager } from "./context-manager.js";
import { type TestObservation, type TestTrace, treeOf } from "./observations.js";
import { type TestMedia, type TestScore, TestSink } from "./sink.js";

/** A tracer provider of either OpenTelemetry line, as the kit needs it. */
export interface TestTracerProvider extends TracerProvider {
  /** Flushes and stops the provider's span processors. */
  shutdown(): Promise<void>;
}

/**
 * A tracer provider class taking `{ spanProcessors }`: `BasicTracerProvider` of `@opentelemetry/sdk-trace-base` (2.x)
 * or `TracerProvider` of `@opentelemetry/sdk-trace` (3.x). (`never[]` fits either line's span processor type.)
 */
export type TestTracerProviderClass = new (config: { spanProcessors: never[] }) => TestTracerProvider;

/** Options of {@link installSvcTestKit}: the provider class and the span processor settings under test. */
export interface SvcTestKitOptions {
  /** The tracer provider class to install, for example `BasicTracerProvider`. */
  provider: TestTracerProviderClass;
  /** The span processor's `mask`. */
  mask?: MaskFunction;
  /** The span processor's `shouldExportSpan`. */
  shouldExportSpan?: ShouldExportSpan;
  /** The span processor's `environment`. */
  environment?: string;
  /** The span processor's `release`. */
  release?: string;
  /** The span processor's `mediaUploadEnabled` (media go to the kit). @defaultValue true */
  mediaUploadEnabled?: boolean;
  /**
   * Also register the provider as the global tracer provider, so that spans of other instrumentation (an LLM
   * client's) go through the processor too; otherwise only svc spans do. @defaultValue false
   */
  global?: boolean;
}

/** What the kit received, as the server would have: observations (flat and as trees), scores and media. */
export interface SvcTestData {
  /** Every observation, in start order, each with its `children`. */
  observations: TestObservation[];
  /** One entry per trace, with its attributes and its root observations. */
  traces: TestTrace[];
  /** Scores sent through `svc.score` of any `SvcClient` in the process, in the order they were sent. */
  scores: TestScore[];
  /** Media uploaded for base64 data URIs found in inputs, outputs and metadata. */
  media: TestMedia[];
  /** The observations with this name. */
  byName(name: string): TestObservation[];
  /** The observations of this type (`generation`, `tool`, `span`...). */
  byType(type: string): TestObservation[];
  /** The one observation with this name. @throws Error naming the observations there are, unless exactly one has it. */
  one(name: string): TestObservation;
}

/** An installed test kit. */
export interface SvcTestKit {
  /** The counts of the kit's span processor (the real pipeline: start, filter, usage, mask, media, export). */
  health(): SpanProcessorHealth;
  /** The installed tracer provider, which svc spans go to. */
  readonly provider: TestTracerProvider;
  /** Flushes every span processor and score queue of the process, then returns what was received so far. */
  collect(): Promise<SvcTestData>;
  /** Flushes, then forgets what was received: call it between tests. */
  reset(): Promise<void>;
  /** Flushes and shuts the provider down, and stops intercepting: svc spans go to the global provider again. */
  uninstall(): Promise<void>;
}

const PROBE = createContextKey("svc test kit: context manager probe");
/** The keys the kit's server accepts; every component created without keys while it is installed takes them. */
const KIT_KEYS = { publicKey: "pk-test-kit", secretKey: "sk-test-kit" };

/**
 * Installs a tracer provider with a real `SvcSpanProcessor` whose requests never leave the process: the kit stands in
 * for the server (through the transport's test hook) for every part of the SDK that delivers data (spans, `svc.score`,
 * media), so tests need no server, keys or network. An `AsyncLocalStorage` context manager is registered when none is.
 * One kit at a time: install it once per test file, `reset()` between tests, `uninstall()` at the end.
 * @example
 * ```ts
 * import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
 * import { installSvcTestKit } from "@svc/otel/testing";
 *
 * const kit = installSvcTestKit({ provider: BasicTracerProvider });
 * afterEach(() => kit.reset());
 * afterAll(() => kit.uninstall());
 *
 * it("records the answer as a generation", async () => {
 *   await answer("What is svc?");
 *   const { one } = await kit.collect();
 *   expect(one("llm-call")).toMatchObject({ type: "generation", model: "gpt-4o" });
 * });
 * ```
 */
export function installSvcTestKit(options: SvcTestKitOptions): SvcTestKit {
  const { provider: Provider, global: asGlobal } = options;
  const sink = new TestSink();
  setTransportInterceptor({ interceptor: sink.intercept, keys: KIT_KEYS });
  // Only the options the kit documents reach its processor: the address, keys, exporter and spill are the kit's.
  const processor = new SvcSpanProcessor(
    {
      baseUrl: "http://svc-test-kit.localhost",
      ...KIT_KEYS,
      mask: options.mask,
      shouldExportSpan: options.shouldExportSpan,
      environment: options.environment,
      release: options.release,
      mediaUploadEnabled: options.mediaUploadEnabled,
      flushOnExit: false,
    },
    {},
  );
  const provider = new Provider({ spanProcessors: [processor as never] });
  setSvcTracerProvider(provider);
  const contextManager = hasContextManager() ? undefined : new AsyncStorageContextManager();
  if (contextManager) context.setGlobalContextManager(contextManager);
  const global = asGlobal === true && trace.setGlobalTracerProvider(provider);
  if (asGlobal === true && !global)
    getGlobalLogger().warn("installSvcTestKit: a global tracer provider is already registered; it stays in place");
  let uninstalled = false;
  return {
    health: () => processor.health(),
    provider,
    async collect() {
      await flushWatched();
      return dataOf(sink);
    },
    async reset() {
      await flushWatched();
      sink.clear();
    },
    async uninstall() {
      if (uninstalled) return;
      uninstalled = true;
      await flushWatched();
      await provider.shutdown();
      setSvcTracerProvider(null);
      if (global) trace.disable();
      if (contextManager) context.disable();
      setTransportInterceptor(undefined);
    },
  };
}

/** Whether a context manager that keeps values is registered (the API's default one keeps none). */
function hasContextManager(): boolean {
  return context.with(ROOT_CONTEXT.setValue(PROBE, true), () => context.active().getValue(PROBE) === true);
}

function dataOf(sink: TestSink): SvcTestData {
  const { ordered, traces } = treeOf(sink.observations);
  const byName = (name: string) => ordered.filter((o) => o.name === name);
  return {
    observations: ordered,
    traces,
    scores: [...sink.scores],
    media: [...sink.media.values()],
    byName,
    byType: (type) => ordered.filter((o) => o.type === type),
    one(name) {
      const found = byName(name);
      if (found.length === 1) return found[0] as TestObservation;
      const names = [...new Set(ordered.map((o) => JSON.stringify(o.name)))].join(", ") || "none";
      throw new Error(`expected one observation named "${name}", found ${found.length}; observations: ${names}`);
    },
  };
}
