import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { type Context, context, SpanStatusCode, trace } from "@opentelemetry/api";
import { getGlobalLogger } from "@svc/core";
import {
  type PropagateAttributesParams,
  propagateAttributes,
  type SvcGenerationAttributes,
  type SvcObservationType,
  type SvcUpdatableObservation,
  startObservation,
  updateActiveObservation,
} from "@svc/tracing";
import { errorMessage, observationMetadata, repeats } from "./run-info.js";

type RunObservation = SvcUpdatableObservation<SvcGenerationAttributes>;

/** An open LangChain run and the observation recording it. */
export interface RunState {
  observation: RunObservation;
  /** Context the run's children start in: it carries the trace attributes of the top-level run. */
  context: Context;
  /** True for a run with no parent known to this handler: it carries the trace attributes. */
  isTopLevel: boolean;
  /** Set on a top-level run whose input and output also go to the observation that was active at its start. */
  updatesOuter: boolean;
  completionStartTime?: Date;
}

/** Runs kept open at most; past it the oldest is ended. */
const MAX_OPEN_RUNS = 10_000;

/**
 * Keeps one observation per open LangChain run, keyed by run id: starts it under the parent run's observation
 * (or the active context for a top-level run), ends it on the run's end or error. Runs that never end are
 * ended once `MAX_OPEN_RUNS` newer ones are open, so memory stays bounded.
 */
export class RunTracker {
  readonly #runs = new BoundedMap<string, RunState>(MAX_OPEN_RUNS, (runId, run) => {
    getGlobalLogger().warn(
      `CallbackHandler: run ${runId} still open after ${MAX_OPEN_RUNS} newer runs; ended without output`,
    );
    run.observation.end();
  });
  readonly #agents = new BoundedMap<string, RunObservation>(MAX_OPEN_RUNS, (_, agent) => agent.end());

  constructor(
    private readonly options: {
      version?: string;
      updateRoot: boolean;
      /** Trace attributes of a top-level run, from its tags and metadata. */
      traceAttributes(tags?: string[], metadata?: Record<string, unknown>): PropagateAttributesParams;
    },
  ) {}

  /** Starts the observation of a run, as a child of its parent run's observation when that one is open. */
  start(
    type: SvcObservationType,
    runId: string,
    parentRunId: string | undefined,
    name: string,
    givenTags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    attributes: SvcGenerationAttributes,
  ): void {
    // LangChain passes a list of strings; anything else (a string would be spread into its characters) is none.
    const tags = Array.isArray(givenTags) ? givenTags.filter((tag) => typeof tag === "string") : undefined;
    const full: SvcGenerationAttributes = {
      ...attributes,
      version: this.options.version,
      metadata: observationMetadata(tags, metadata),
      level: tags?.includes("langsmith:hidden") ? "DEBUG" : undefined,
    };

    // A child starts in its parent run's context; a top-level run in the active one, with the trace attributes.
    const parent = parentRunId ? this.#runs.get(parentRunId) : undefined;
    const runContext =
      parent?.context ?? propagateAttributes(this.options.traceAttributes(tags, metadata), () => context.active());
    const updatesOuter = !parent && this.options.updateRoot && trace.getSpan(runContext)?.isRecording() === true;
    if (updatesOuter) context.with(runContext, () => updateActiveObservation({ input: full.input }));
    const parentSpanContext = parent?.observation.otelSpan.spanContext();
    const observation = context.with(runContext, () =>
      startObservation(name, full, { asType: type, parentSpanContext }),
    ) as RunObservation;
    this.#runs.set(runId, { observation, context: runContext, isTopLevel: !parent, updatesOuter });
  }

  /** Records the first streamed token of a run as its completion start time. */
  markFirstToken(runId: string): void {
    const run = this.#runs.get(runId);
    if (!run || run.completionStartTime) return;
    run.completionStartTime = new Date();
    run.observation.update({ completionStartTime: run.completionStartTime });
  }

  /**
   * Records the attributes `read` returns on the run's observation and ends it; returns the ended run, if it was
   * open. The run ends even when `read` throws (the throw is passed on for the caller to log).
   */
  end(callback: string, runId: string, read: () => SvcGenerationAttributes): RunState | undefined {
    return this.#finish(callback, runId, "nothing recorded", (run) => {
      const attributes = read();
      run.observation.update(attributes);
      if (run.updatesOuter) context.with(run.context, () => updateActiveObservation({ output: attributes.output }));
    });
  }

  /** Records the run's error (level ERROR, status message) and ends it; returns the ended run, if it was open. */
  fail(callback: string, runId: string, err: unknown): RunState | undefined {
    return this.#finish(callback, runId, "error not recorded", (run) => {
      const message = errorMessage(err);
      run.observation.update({ level: "ERROR", statusMessage: message });
      run.observation.otelSpan.setStatus({ code: SpanStatusCode.ERROR, message });
    });
  }

  #finish(callback: string, runId: string, lost: string, record: (run: RunState) => void): RunState | undefined {
    const run = this.#runs.take(runId);
    if (!run) {
      const kind = `CallbackHandler: ${callback} for unknown run`;
      repeats.warn(kind, `${kind} ${runId}; ${lost}`);
      return undefined;
    }
    try {
      this.#agents.take(runId)?.end();
      record(run);
    } finally {
      run.observation.end();
    }
    return run;
  }

  /** Starts a span for an action of the agent run `runId`, under that run, ending its previous action's. */
  startAgentAction(action: AgentAction, runId: string, parentRunId: string | undefined): void {
    this.#agents.take(runId)?.end();
    const owner = this.#runs.get(runId) ?? (parentRunId ? this.#runs.get(parentRunId) : undefined);
    const start = () =>
      startObservation(
        action.tool,
        { input: action, version: this.options.version },
        { asType: "span", parentSpanContext: owner?.observation.otelSpan.spanContext() },
      );
    this.#agents.set(runId, owner ? context.with(owner.context, start) : start());
  }

  /** Records the agent's finish on its open action and ends it. */
  finishAgent(finish: AgentFinish, runId: string): void {
    const agent = this.#agents.take(runId);
    if (!agent) {
      getGlobalLogger().debug(
        `CallbackHandler: agent finish for run ${runId} without an open agent action; not recorded`,
      );
      return;
    }
    agent.update({ output: finish }).end();
  }
}

/**
 * A Map that holds at most `limit` entries: adding one more evicts the oldest entry and hands it to `onEvict`.
 * Runs that never end (a crashed process step, a callback LangChain never sent) cannot grow it forever.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(
    private readonly limit: number,
    private readonly onEvict: (key: K, value: V) => void = () => {},
  ) {
    super();
  }

  /** Stores `value` as the newest entry, evicting the oldest ones beyond the limit. */
  override set(key: K, value: V): this {
    this.delete(key);
    super.set(key, value);
    for (const [oldest, evicted] of this) {
      if (this.size <= this.limit) break;
      this.delete(oldest);
      this.onEvict(oldest, evicted);
    }
    return this;
  }

  /** Removes and returns the entry for `key`. */
  take(key: K): V | undefined {
    const value = this.get(key);
    this.delete(key);
    return value;
  }
}
