import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { httpRequest, OTLP_TRACES_PATH } from "@svc/core";
import { installSvcTestKit, type TestObservation } from "@svc/otel/testing";
import { ROOT } from "./packages.ts";

// The model-call matrix's cases and how an observation is compared with the golden expectations
// (tests/fixtures/model-calls/expected.ts). Shared by the matrix (tests/packaging/model-calls.test.ts), which runs
// each recipe of docs/model-calls/ against the mock providers, and by the fixture test
// (tests/dev-server/model-call-fixtures.test.ts), which reads the recorded spans without the network.

/** One run of a recipe: the set-up folder of docs/model-calls/, the file loaded first, the app. */
export interface ModelCallCase {
  /** The case's name, also the name of its recorded spans in tests/fixtures/model-calls/. */
  id: string;
  /** The folder under docs/model-calls/ (one `npm install` each). */
  setup: string;
  /** `--import` for ES modules, `--require` for CommonJS. */
  load: "--import" | "--require";
  /** The set-up file of the recipe. */
  instrumentation: string;
  /** The app of the recipe. */
  app: string;
  /** Environment the recipe documents (content capture). */
  env?: Record<string, string>;
}

export const MODEL_CALL_CASES: readonly ModelCallCase[] = [
  {
    id: "openai-7-openinference",
    setup: "openai-7",
    load: "--import",
    instrumentation: "instrumentation.mjs",
    app: "app.mjs",
  },
  {
    id: "openai-7-openinference-cjs",
    setup: "openai-7",
    load: "--require",
    instrumentation: "instrumentation.cjs",
    app: "app.cjs",
  },
  { id: "ai-sdk-7-otel", setup: "ai-sdk-7", load: "--import", instrumentation: "instrumentation.mjs", app: "app.mjs" },
  {
    id: "ai-sdk-7-legacy",
    setup: "ai-sdk-7",
    load: "--import",
    instrumentation: "instrumentation-legacy.mjs",
    app: "app.mjs",
  },
  {
    id: "anthropic-1-own",
    setup: "anthropic-1",
    load: "--import",
    instrumentation: "instrumentation.mjs",
    app: "app.mjs",
    env: { ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE: "content" },
  },
  {
    id: "anthropic-0.137-traceloop",
    setup: "anthropic-0.137",
    load: "--import",
    instrumentation: "instrumentation-traceloop.mjs",
    app: "app.mjs",
  },
  {
    id: "anthropic-0.137-openinference",
    setup: "anthropic-0.137",
    load: "--import",
    instrumentation: "instrumentation-openinference.mjs",
    app: "app.mjs",
  },
  // The same two, as the guide advises: the SDK's own tracing off, so that each call is traced once.
  {
    id: "anthropic-0.137-traceloop-alone",
    setup: "anthropic-0.137",
    load: "--import",
    instrumentation: "instrumentation-traceloop.mjs",
    app: "app.mjs",
    env: { ANTHROPIC_OPEN_TELEMETRY: "false" },
  },
  {
    id: "anthropic-0.137-openinference-alone",
    setup: "anthropic-0.137",
    load: "--import",
    instrumentation: "instrumentation-openinference.mjs",
    app: "app.mjs",
    env: { ANTHROPIC_OPEN_TELEMETRY: "false" },
  },
  {
    id: "openai-6-otel",
    setup: "openai-6",
    load: "--require",
    instrumentation: "instrumentation-otel.cjs",
    app: "app.cjs",
    env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" },
  },
  {
    id: "openai-6-traceloop",
    setup: "openai-6",
    load: "--require",
    instrumentation: "instrumentation-traceloop.cjs",
    app: "app.cjs",
  },
  {
    id: "openai-agents-openinference",
    setup: "openai-agents",
    load: "--import",
    instrumentation: "instrumentation.mjs",
    app: "app.mjs",
  },
  { id: "mcp-traceloop", setup: "mcp", load: "--import", instrumentation: "instrumentation.mjs", app: "app.mjs" },
];

/** Where a case's recorded spans (one OTLP/JSON request) are kept. */
export function fixturePath(id: string): string {
  return join(ROOT, "tests", "fixtures", "model-calls", `${id}.spans.json`);
}

/** The recorded spans of a case, or undefined when it was never recorded. */
export function readFixture(id: string): unknown {
  try {
    return JSON.parse(readFileSync(fixturePath(id), "utf8"));
  } catch {
    return undefined;
  }
}

/** An observation, from the dev server (upper-case type, `usageDetails`) or the test kit, as far as it is compared. */
export interface ReadObservation {
  traceId: string;
  name: string | null;
  type: string;
  model: string | null | undefined;
  input: unknown;
  output: unknown;
  usage: Record<string, number> | null | undefined;
}

/** What the golden expectations say of one observation. */
export interface ExpectedObservation {
  type: string;
  model?: string;
  input: boolean;
  output: boolean;
  usage?: Record<string, number>;
}

/** One trace as the expectations cover it: its model calls, its tool calls, and what it costs. */
export interface TraceSummary {
  /** Generations and embeddings, in start order (a parent before its child), usage where it is counted. */
  calls: ExpectedObservation[];
  /** Tool observations, in start order. */
  tools: ExpectedObservation[];
  /** The usage of the trace's observations summed per bucket. */
  usage: Record<string, number>;
}

const present = (value: unknown) => value !== null && value !== undefined && value !== "";
const MODEL_CALL = new Set(["generation", "embedding"]);

/** Traces in one order whatever order they were made in (two calls may start in the same millisecond). */
export function canonical(traces: readonly TraceSummary[]): TraceSummary[] {
  return [...traces].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** Summarizes read observations (in start order, a parent before its child) per trace, as the expectations are written. */
export function summarize(observations: readonly ReadObservation[]): TraceSummary[] {
  const hasUsage = (o: ReadObservation) => o.usage !== null && o.usage !== undefined && Object.keys(o.usage).length > 0;
  const shape = (o: ReadObservation): ExpectedObservation => ({
    type: o.type.toLowerCase(),
    ...(o.model ? { model: o.model } : {}),
    input: present(o.input),
    output: present(o.output),
    ...(hasUsage(o) ? { usage: o.usage as Record<string, number> } : {}),
  });
  const traces = new Map<string, TraceSummary>();
  for (const o of observations) {
    const trace = traces.get(o.traceId) ?? { calls: [], tools: [], usage: {} };
    traces.set(o.traceId, trace);
    for (const [k, v] of Object.entries(o.usage ?? {})) trace.usage[k] = (trace.usage[k] ?? 0) + v;
    if (MODEL_CALL.has(o.type.toLowerCase())) trace.calls.push(shape(o));
    if (o.type.toLowerCase() === "tool") trace.tools.push(shape(o));
  }
  return canonical([...traces.values()]);
}

/** The observations as the dev server's read route returns them, in the order of `ids` (span ids in start order). */
export function fromDevServer(data: readonly Record<string, unknown>[], ids: readonly string[]): ReadObservation[] {
  const rank = new Map(ids.map((id, index) => [id, index]));
  return [...data]
    .sort((a, b) => (rank.get(a.id as string) ?? -1) - (rank.get(b.id as string) ?? -1))
    .map((o) => ({
      traceId: o.traceId as string,
      name: o.name as string,
      type: o.type as string,
      model: o.providedModelName as string | null,
      input: o.input,
      output: o.output,
      usage: o.usageDetails as Record<string, number>,
    }));
}

/**
 * The observations the test kit of `@svc/otel/testing` reads from an OTLP/JSON request (`{ resourceSpans }`), in
 * start order: the request is sent to the kit's stand-in server, as a span processor sends it.
 */
export async function readByTestKit(otlp: unknown): Promise<TestObservation[]> {
  const kit = installSvcTestKit({ provider: BasicTracerProvider });
  try {
    const sent = await httpRequest({
      method: "POST",
      url: `http://svc-test-kit.localhost${OTLP_TRACES_PATH}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(otlp),
      attemptTimeoutMs: 5000,
      maxRetries: 0,
    });
    if (!sent.ok) throw new Error(`the test kit did not take the spans: ${JSON.stringify(sent.failure)}`);
    return (await kit.collect()).observations;
  } finally {
    await kit.uninstall();
  }
}
