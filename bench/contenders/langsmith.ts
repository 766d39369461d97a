// LangSmith's JS SDK from npm (`langsmith`): `traceable` functions on its batching `Client` (automatic batch tracing
// on, every setting at its default), pointed at the sink; scores as feedback (`createFeedback`), which the same
// client batches.
import { Client } from "langsmith";
import { traceable } from "langsmith/traceable";
import { INPUTS, METADATA, OBSERVATIONS_PER_TRACE, OUTPUTS, STEPS, scoreBody } from "../payload.ts";
import type { ScoresContender, SinkTarget, SpansContender } from "./types.ts";

const PROJECT = "bench";
/** The run and project the feedback of the scores workload is about (fixed, as the other contenders' trace id). */
const RUN_ID = "74747474-7474-4747-8474-747474747474";
const PROJECT_ID = "0b0b0b0b-0b0b-40b0-80b0-0b0b0b0b0b0b";

/**
 * The SDK's client, telling when a trace is wholly queued: `traceable` creates each run when its function starts and
 * completes it (`updateRun`) in promise callbacks after the function has returned, children before parents.
 */
class QueuedClient extends Client {
  #waiting: { left: number; resolve: () => void } | undefined;

  /** Resolves once `count` more runs have been completed and queued. */
  completions(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting = { left: count, resolve };
    });
  }

  override async updateRun(...args: Parameters<Client["updateRun"]>): Promise<void> {
    await super.updateRun(...args);
    const waiting = this.#waiting;
    if (waiting !== undefined && --waiting.left === 0) {
      this.#waiting = undefined;
      waiting.resolve();
    }
  }
}

/** A client pointed at the sink, with the server description (GET /info) already fetched, as in a running service. */
async function client(target: SinkTarget): Promise<QueuedClient> {
  const c = new QueuedClient({ apiUrl: target.baseUrl, apiKey: "lsv2_pt_bench" });
  await c.flush();
  return c;
}

export async function spans(target: SinkTarget): Promise<SpansContender> {
  const ls = await client(target);
  const index = new Map(INPUTS.map((input, k) => [input, k]));
  const inputAt = (k: number) => INPUTS[k % INPUTS.length]!;
  const outputFor = (input: Record<string, unknown>) => OUTPUTS[index.get(input)!]!;
  const config = (name: string, run_type: string, metadata: Record<string, unknown> = METADATA) => ({
    name,
    run_type,
    client: ls,
    project_name: PROJECT,
    tracingEnabled: true,
    metadata,
  });
  // Observation k of a trace gets input and output k, as with the other contenders: the step at k passes k + 1 and
  // k + 2 to its children, the agent at k passes k + 1, k + 4 and k + 7 to its steps.
  const llm = traceable(
    async (input: Record<string, unknown>) => outputFor(input),
    config("llm", "llm", { ...METADATA, ls_model_name: "gpt-bench" }),
  );
  const tool = traceable(async (input: Record<string, unknown>) => outputFor(input), config("tool", "tool"));
  const steps = Array.from({ length: STEPS }, (_, s) =>
    traceable(
      async (input: Record<string, unknown>) => {
        const k = index.get(input)!;
        await llm(inputAt(k + 1));
        await tool(inputAt(k + 2));
        return outputFor(input);
      },
      config(`step-${s}`, "chain"),
    ),
  );
  const agent = traceable(
    async (input: Record<string, unknown>) => {
      const k = index.get(input)!;
      for (let s = 0; s < STEPS; s++) await steps[s]!(inputAt(k + 3 * s + 1));
      return outputFor(input);
    },
    config("agent", "chain"),
  );
  return {
    async trace(i) {
      const queued = ls.completions(OBSERVATIONS_PER_TRACE);
      await agent(inputAt(i * OBSERVATIONS_PER_TRACE));
      await queued;
    },
    forceFlush: () => ls.awaitPendingTraceBatches(),
    async shutdown() {
      await ls.awaitPendingTraceBatches();
      ls.cleanup();
    },
  };
}

export async function scores(target: SinkTarget): Promise<ScoresContender> {
  const ls = await client(target);
  return {
    async create(i) {
      const { name, value } = scoreBody(i, RUN_ID);
      // Resolves once the feedback is queued for the next multipart batch.
      await ls.createFeedback({ runId: RUN_ID, traceId: RUN_ID, sessionId: PROJECT_ID, key: name, score: value });
    },
    flush: () => ls.awaitPendingTraceBatches(),
    async shutdown() {
      await ls.awaitPendingTraceBatches();
      ls.cleanup();
    },
  };
}
