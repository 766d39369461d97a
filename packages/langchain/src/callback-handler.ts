import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { DocumentInterface } from "@langchain/core/documents";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import { type Context, context, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  getGlobalLogger,
  type PropagateAttributesParams,
  propagateAttributes,
  type SvcGenerationAttributes,
  type SvcObservationType,
  type SvcSpanAttributes,
  type SvcUpdatableObservation,
  startObservation,
  updateActiveObservation,
} from "@svc/tracing";
import { BoundedMap } from "./internal/bounded-map.js";
import { chainInput, chainOutput } from "./internal/chain-io.js";
import { generationOutput } from "./internal/generation-output.js";
import { chatModelInput, modelNameAtEnd, modelNameAtStart, modelParameters } from "./internal/model.js";
import { PROMPT_METADATA_KEY, PromptLinks, parsePromptLink } from "./internal/prompt-links.js";
import { errorMessage, metadataString, observationMetadata, runLevel, runName } from "./internal/run-info.js";
import { extractUsageDetails } from "./internal/usage.js";

/** Options of {@link CallbackHandler}. */
export interface CallbackHandlerParams {
  /** User id recorded on the trace; run metadata `svcUserId` overrides it per invocation. */
  userId?: string;
  /** Session id recorded on the trace; run metadata `svcSessionId` overrides it per invocation. */
  sessionId?: string;
  /** Tags recorded on the trace, added to the tags of the top-level run. @defaultValue [] */
  tags?: string[];
  /** Version recorded on the trace and on every observation. */
  version?: string;
  /** Metadata recorded on the trace. */
  traceMetadata?: Record<string, unknown>;
  /**
   * When the handler's top-level run starts inside an active svc observation, also record the run's input and
   * output on that observation, so that they become the trace input and output when it is the trace root.
   * Without an active observation the top-level run is the root already and this changes nothing.
   * @defaultValue false
   */
  updateRoot?: boolean;
}

type RunObservation = SvcUpdatableObservation<SvcGenerationAttributes>;

interface RunState {
  observation: RunObservation;
  /** Context the run's children start in: it carries the trace attributes of the top-level run. */
  context: Context;
  isTopLevel: boolean;
  /** Set on a top-level run whose input and output also go to the observation that was active at its start. */
  updatesOuter: boolean;
  completionStartTime?: Date;
}

// Runs that never receive an end callback are dropped after this many newer ones, so memory stays bounded.
const MAX_OPEN_RUNS = 10_000;

const log = () => getGlobalLogger();

/**
 * LangChain callback handler that records every run as an svc observation: chains and graph nodes as chains,
 * LLM and chat model runs as generations, tools as tools, retrievers as retrievers and agent actions as agents,
 * nested as LangChain nests them and under the active svc observation, if any. It never throws into the run.
 * @example
 * const handler = new CallbackHandler({ userId: "u-1", sessionId: "s-1" });
 * await chain.invoke({ topic: "owls" }, { callbacks: [handler] });
 */
export class CallbackHandler extends BaseCallbackHandler {
  name = "SvcCallbackHandler";
  /** Trace id of the last top-level run that ended, or null before the first. */
  last_trace_id: string | null = null;
  readonly #params: CallbackHandlerParams;
  readonly #runs = new BoundedMap<string, RunState>(MAX_OPEN_RUNS, (runId, run) => this.#evict(runId, run));
  readonly #agents = new BoundedMap<string, RunObservation>(MAX_OPEN_RUNS, (_, agent) => agent.end());
  readonly #prompts = new PromptLinks();

  constructor(params: CallbackHandlerParams = {}) {
    // Awaited handlers run in the caller's async context, which is what nests runs under an active observation.
    super({ _awaitHandler: true });
    this.#params = { ...params, tags: [...(params.tags ?? [])] };
  }

  /** The options this handler was created with. */
  get params(): Readonly<CallbackHandlerParams> {
    return this.#params;
  }

  /** A handler with the same options and no open runs. */
  override copy(): CallbackHandler {
    return new CallbackHandler(this.#params);
  }

  // The parameter order is the one @langchain/core calls with (parent run id fourth, run name eighth); its type
  // declaration names the fourth and seventh parameters differently, with the same types.
  override handleChainStart(
    chain: Serialized,
    inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    name?: string,
  ): void {
    this.#safely("handleChainStart", () => {
      this.#registerPrompt(metadata, parentRunId);
      this.#startRun("chain", runId, parentRunId, runName(name, chain, "Langchain Run"), tags, metadata, {
        input: chainInput(inputs),
      });
    });
  }

  override handleChainEnd(outputs: ChainValues, runId: string): void {
    this.#safely("handleChainEnd", () => {
      this.#prompts.release(runId);
      this.#endAgent(runId);
      this.#endRun("handleChainEnd", runId, { output: chainOutput(outputs) });
    });
  }

  override handleChainError(err: Error, runId: string): void {
    this.#safely("handleChainError", () => {
      this.#prompts.release(runId);
      this.#endAgent(runId);
      this.#failRun("handleChainError", runId, err);
    });
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    this.#safely("handleLLMStart", () =>
      this.#startGeneration(llm, prompts, runId, parentRunId, extraParams, tags, metadata, name),
    );
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    this.#safely("handleChatModelStart", () => {
      const input = chatModelInput(messages, extraParams);
      this.#startGeneration(llm, input, runId, parentRunId, extraParams, tags, metadata, name);
    });
  }

  override handleLLMNewToken(_token: string, _idx: unknown, runId: string): void {
    this.#safely("handleLLMNewToken", () => {
      const run = this.#runs.get(runId);
      if (!run || run.completionStartTime) return;
      run.completionStartTime = new Date();
      run.observation.update({ completionStartTime: run.completionStartTime });
    });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    this.#safely("handleLLMEnd", () => {
      const attributes: SvcGenerationAttributes = { output: generationOutput(output) };
      const model = modelNameAtEnd(output);
      if (model) attributes.model = model;
      const usage = extractUsageDetails(output);
      if (usage) attributes.usageDetails = usage;
      this.#endRun("handleLLMEnd", runId, attributes);
    });
  }

  override handleLLMError(err: Error, runId: string): void {
    this.#safely("handleLLMError", () => this.#failRun("handleLLMError", runId, err));
  }

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    this.#safely("handleToolStart", () => {
      this.#startRun("tool", runId, parentRunId, runName(name, tool, "Tool execution"), tags, metadata, { input });
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.#safely("handleToolEnd", () => this.#endRun("handleToolEnd", runId, { output }));
  }

  override handleToolError(err: Error, runId: string): void {
    this.#safely("handleToolError", () => this.#failRun("handleToolError", runId, err));
  }

  override handleRetrieverStart(
    retriever: Serialized,
    query: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    this.#safely("handleRetrieverStart", () => {
      const observationName = runName(name, retriever, "Retriever");
      this.#startRun("retriever", runId, parentRunId, observationName, tags, metadata, { input: query });
    });
  }

  override handleRetrieverEnd(documents: DocumentInterface[], runId: string): void {
    this.#safely("handleRetrieverEnd", () => this.#endRun("handleRetrieverEnd", runId, { output: documents }));
  }

  override handleRetrieverError(err: Error, runId: string): void {
    this.#safely("handleRetrieverError", () => this.#failRun("handleRetrieverError", runId, err));
  }

  override handleAgentAction(action: AgentAction, runId: string, parentRunId?: string): void {
    this.#safely("handleAgentAction", () => {
      this.#endAgent(runId);
      const owner = this.#runs.get(runId) ?? (parentRunId ? this.#runs.get(parentRunId) : undefined);
      const start = () =>
        startObservation(
          action.tool,
          { input: action, version: this.#params.version },
          { asType: "agent", parentSpanContext: owner?.observation.otelSpan.spanContext() },
        );
      this.#agents.set(runId, owner ? context.with(owner.context, start) : start());
    });
  }

  override handleAgentEnd(finish: AgentFinish, runId: string): void {
    this.#safely("handleAgentEnd", () => {
      const agent = this.#agents.take(runId);
      if (!agent) {
        log().debug(`CallbackHandler: agent finish for run ${runId} without an open agent action; not recorded`);
        return;
      }
      agent.update({ output: finish }).end();
    });
  }

  #startGeneration(
    llm: Serialized,
    input: unknown,
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    name: string | undefined,
  ): void {
    const attributes: SvcGenerationAttributes = { input };
    const model = modelNameAtStart(extraParams, metadata);
    if (model) attributes.model = model;
    const parameters = modelParameters(extraParams);
    if (parameters) attributes.modelParameters = parameters;
    const prompt = this.#prompts.take(parentRunId);
    if (prompt && !prompt.isFallback) attributes.prompt = prompt;
    const observationName = runName(name, llm, "Langchain Generation");
    this.#startRun("generation", runId, parentRunId, observationName, tags, metadata, attributes);
  }

  #startRun(
    type: SvcObservationType,
    runId: string,
    parentRunId: string | undefined,
    name: string,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    attributes: SvcGenerationAttributes,
  ): void {
    const full: SvcGenerationAttributes = { ...attributes, version: this.#params.version };
    const observationMetadataValue = observationMetadata(tags, metadata);
    if (observationMetadataValue) full.metadata = observationMetadataValue;
    const level = runLevel(tags);
    if (level) full.level = level;

    const parent = parentRunId ? this.#runs.get(parentRunId) : undefined;
    if (parent) {
      const parentSpanContext = parent.observation.otelSpan.spanContext();
      const observation = context.with(parent.context, () =>
        startObservation(name, full, { asType: type, parentSpanContext }),
      ) as RunObservation;
      this.#runs.set(runId, { observation, context: parent.context, isTopLevel: false, updatesOuter: false });
      return;
    }

    // A run without a known parent is the top of this handler's tree: it carries the trace attributes.
    const traceContext = propagateAttributes(this.#traceAttributes(tags, metadata), () => context.active());
    const outer = trace.getSpan(traceContext);
    const updatesOuter = this.#params.updateRoot === true && outer?.isRecording() === true;
    if (updatesOuter) context.with(traceContext, () => updateActiveObservation({ input: full.input }));
    const observation = context.with(traceContext, () =>
      startObservation(name, full, { asType: type }),
    ) as RunObservation;
    this.#runs.set(runId, { observation, context: traceContext, isTopLevel: true, updatesOuter });
  }

  #traceAttributes(tags: string[] | undefined, metadata: Record<string, unknown> | undefined) {
    const params: PropagateAttributesParams = {};
    const userId = metadataString(metadata, "svcUserId") ?? this.#params.userId;
    const sessionId = metadataString(metadata, "svcSessionId") ?? this.#params.sessionId;
    if (userId !== undefined) params.userId = userId;
    if (sessionId !== undefined) params.sessionId = sessionId;
    const allTags = [...new Set([...(tags ?? []), ...(this.#params.tags ?? [])])];
    if (allTags.length > 0) params.tags = allTags;
    if (this.#params.version !== undefined) params.version = this.#params.version;
    if (this.#params.traceMetadata !== undefined) params.metadata = this.#params.traceMetadata;
    return params;
  }

  #endRun(callback: string, runId: string, attributes: SvcGenerationAttributes): void {
    const run = this.#runs.take(runId);
    if (!run) {
      log().warn(`CallbackHandler: ${callback} for unknown run ${runId}; nothing recorded`);
      return;
    }
    if (run.completionStartTime) attributes.completionStartTime = run.completionStartTime;
    run.observation.update(attributes).end();
    this.#finishTopLevel(run, { output: attributes.output });
  }

  #failRun(callback: string, runId: string, err: unknown): void {
    const run = this.#runs.take(runId);
    if (!run) {
      log().warn(`CallbackHandler: ${callback} for unknown run ${runId}; error not recorded`);
      return;
    }
    const message = errorMessage(err);
    const attributes: SvcGenerationAttributes = { level: "ERROR", statusMessage: message };
    if (run.completionStartTime) attributes.completionStartTime = run.completionStartTime;
    run.observation.update(attributes);
    run.observation.otelSpan.setStatus({ code: SpanStatusCode.ERROR, message });
    run.observation.end();
    this.#finishTopLevel(run, undefined);
  }

  #finishTopLevel(run: RunState, outerUpdate: SvcSpanAttributes | undefined): void {
    if (!run.isTopLevel) return;
    this.last_trace_id = run.observation.traceId;
    if (run.updatesOuter && outerUpdate) context.with(run.context, () => updateActiveObservation(outerUpdate));
  }

  #registerPrompt(metadata: Record<string, unknown> | undefined, parentRunId: string | undefined): void {
    const value = metadata?.[PROMPT_METADATA_KEY];
    if (value === undefined || parentRunId === undefined) return;
    const link = parsePromptLink(value);
    if (typeof link === "string") {
      log().warn(`CallbackHandler: metadata ${PROMPT_METADATA_KEY} ignored: ${link}`);
      return;
    }
    this.#prompts.register(parentRunId, link);
  }

  #endAgent(runId: string): void {
    this.#agents.take(runId)?.end();
  }

  #evict(runId: string, run: RunState): void {
    log().warn(`CallbackHandler: run ${runId} still open after ${MAX_OPEN_RUNS} newer runs; ended without output`);
    run.observation.end();
  }

  #safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      log().warn(`CallbackHandler: ${what} failed and was skipped: ${errorMessage(err)}`);
    }
  }
}
