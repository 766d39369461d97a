import { context, propagation, trace } from "@opentelemetry/api";
import type { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcClient } from "@svc/client";
import type { SvcSpanProcessorParams } from "@svc/otel";
import { setSvcTracerProvider } from "@svc/tracing";
import { afterAll, afterEach, beforeAll, onTestFinished } from "vitest";
import { type SeenRequest, startServer, type TestServer } from "./http-server.ts";
import { exportedSpans, svcProvider } from "./otel.ts";

export const DATASET = {
  id: "ds-1",
  name: "capitals",
  description: null,
  metadata: null,
  projectId: "proj-1",
  createdAt: "2026-01-02T03:04:05.000Z",
  updatedAt: "2026-01-02T03:04:05.000Z",
};
const DATASET_ITEMS = [
  {
    id: "item-1",
    datasetId: "ds-1",
    datasetName: "capitals",
    input: "France",
    expectedOutput: "Paris",
    metadata: { region: "eu" },
  },
  { id: "item-2", datasetId: "ds-1", datasetName: "capitals", input: "Japan", expectedOutput: "Tokyo", metadata: null },
].map((item) => ({ ...item, status: "ACTIVE", createdAt: DATASET.createdAt, updatedAt: DATASET.createdAt }));

/** Answers the routes an experiment touches, like the real server does. */
export function reply(req: SeenRequest) {
  if (req.path === "/api/public/projects") return { json: { data: [{ id: "proj-1", name: "p" }] } };
  if (req.path === "/api/public/v2/datasets/capitals") return { json: DATASET };
  if (req.path === "/api/public/dataset-items") {
    return { json: { data: DATASET_ITEMS, meta: { page: 1, limit: 50, totalItems: 2, totalPages: 1 } } };
  }
  return { status: 200, json: {} };
}

/** A recording server answering the experiment routes, a SvcSpanProcessor exporting to it, and a client. */
export async function setup(
  processorParams: SvcSpanProcessorParams = {},
): Promise<{ server: TestServer; svc: SvcClient; provider: BasicTracerProvider }> {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  const { provider } = svcProvider(server, processorParams);
  setSvcTracerProvider(provider);
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" });
  return { server, svc, provider };
}

/**
 * Installs the AsyncLocalStorage context manager for the current test file (through a Node provider that
 * records nothing itself: spans go to the svc provider each test sets), and resets the svc provider after each test.
 */
export function useExperimentTracing(): void {
  beforeAll(() => new NodeTracerProvider().register());
  afterEach(() => setSvcTracerProvider(null));
  afterAll(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });
}

/** Exported root spans of experiment items. */
export function rootSpans(server: TestServer): ReturnType<typeof exportedSpans> {
  return exportedSpans(server).filter((s) => s.name === "experiment-item-run");
}

/** Every score the server received, across batches. */
export function sentScores(server: TestServer): Record<string, unknown>[] {
  return server.seen
    .filter((r) => r.method === "POST" && r.path === "/api/public/scores")
    .flatMap((r) => r.json as Record<string, unknown>[]);
}

/** Two local items. */
export const capitals = [
  { input: "France", expectedOutput: "Paris", metadata: { region: "eu" } },
  { input: "Japan", expectedOutput: "Tokyo" },
];
const CAPITALS: Record<string, string> = { France: "Paris", Japan: "Kyoto" };
/** A task that knows one capital right and one wrong. */
export const answer = async ({ input }: { input?: unknown }) => CAPITALS[String(input)] ?? "?";

/**
 * Counts concurrent task calls. Each call waits until `expected` calls are in flight together (or a
 * bounded fallback passes), so the peak is exactly the runner's limit whatever the machine's speed.
 */
export function concurrencyProbe(expected: number, fallbackMs = 2_000) {
  let inFlight = 0;
  let peak = 0;
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const fallback = setTimeout(open, fallbackMs);
  return {
    get peak() {
      return peak;
    },
    async run<T>(value: T): Promise<T> {
      peak = Math.max(peak, ++inFlight);
      if (inFlight >= expected) {
        clearTimeout(fallback);
        open();
      }
      await gate;
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return value;
    },
  };
}
