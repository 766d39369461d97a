import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { DocumentInterface } from "@langchain/core/documents";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import { getGlobalLogger, logStartup, readField, readPromptLink, safely, show, warnUnknownOptions } from "@svc/core";
import type { PropagateAttributesParams, SvcGenerationAttributes, SvcPromptReference } from "@svc/tracing";
import { chainInput, chainOutput } from "./internal/messages.js";
import {
  chatModelInput,
  extractUsageDetails,
  generationOutput,
  modelNameAtEnd,
  modelNameAtStart,
  modelParameters,
} from "./internal/model.js";
import { repeats, runName, stringField } from "./internal/run-info.js";
import { BoundedMap, type RunState, RunTracker } from "./internal/run-tracker.js";

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

/**
 * LangChain callback handler that records every run as an svc observation: LLM and chat model runs as generations,
 * tools as tools, and chains, graph nodes, retrievers and agent actions as spans (as the previous major did), nested
 * as LangChain nests them and under the active svc observation, if any. It never throws into the run.
 * @example
 * const handler = new CallbackHandler({ userId: "u-1", sessionId: "s-1" });
 * await chain.invoke({ topic: "owls" }, { callbacks: [handler] });
 */
export class CallbackHandler extends BaseCallbackHandler {
  name = "SvcCallbackHandler";
  /** Trace id of the last top-level run that ended, or null before the first. */
  last_trace_id: string | null = null;
  readonly #params: CallbackHandlerParams;
  readonly #runs: RunTracker;
  /**
   * Prompt links waiting for a generation: a run that carries a prompt (typically a sequence's prompt template step)
   * registers it under its parent run; the next generation with that parent takes it.
   */
  readonly #prompts = new BoundedMap<string, SvcPromptReference>(1000);

  constructor(params: CallbackHandlerParams = {}) {
    // Awaited handlers run in the caller's async context, which is what nests runs under an active observation.
    super({ _awaitHandler: true });
    this.#params = readParams(params);
    this.#runs = new RunTracker({
      version: this.#params.version,
      updateRoot: this.#params.updateRoot === true,
      traceAttributes: (tags, metadata) => this.#traceAttributes(tags, metadata),
    });
  }

  /** The options this handler was created with. */
  get params(): Readonly<CallbackHandlerParams> {
    return this.#params;
  }

  /** A handler with the same options and no open runs. */
  override copy(): CallbackHandler {
    // Through the constructor rather than the class name: a class that names itself is renamed when bundled.
    const Handler = this.constructor as new (params: CallbackHandlerParams) => CallbackHandler;
    return new Handler(this.#params);
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
      // Chains, retrievers and agent actions are spans, as the previous major recorded them: observation-level
      // evaluators and dashboards of existing projects select observations by type.
      this.#runs.start("span", runId, parentRunId, runName(name, chain, "Langchain Run"), tags, metadata, {
        input: chainInput(inputs),
      });
    });
  }

  override handleChainEnd(outputs: ChainValues, runId: string): void {
    this.#safely("handleChainEnd", () => {
      this.#prompts.delete(runId);
      this.#ended(this.#runs.end("handleChainEnd", runId, () => ({ output: chainOutput(outputs) })));
    });
  }

  override handleChainError(err: Error, runId: string): void {
    this.#safely("handleChainError", () => {
      this.#prompts.delete(runId);
      this.#ended(this.#runs.fail("handleChainError", runId, err));
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
    this.#safely("handleLLMNewToken", () => this.#runs.markFirstToken(runId));
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    this.#safely("handleLLMEnd", () => this.#ended(this.#runs.end("handleLLMEnd", runId, () => generationEnd(output))));
  }

  override handleLLMError(err: Error, runId: string): void {
    this.#safely("handleLLMError", () => this.#ended(this.#runs.fail("handleLLMError", runId, err)));
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
      this.#runs.start("tool", runId, parentRunId, runName(name, tool, "Tool execution"), tags, metadata, { input });
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.#safely("handleToolEnd", () => this.#ended(this.#runs.end("handleToolEnd", runId, () => ({ output }))));
  }

  override handleToolError(err: Error, runId: string): void {
    this.#safely("handleToolError", () => this.#ended(this.#runs.fail("handleToolError", runId, err)));
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
      this.#runs.start("span", runId, parentRunId, observationName, tags, metadata, { input: query });
    });
  }

  override handleRetrieverEnd(documents: DocumentInterface[], runId: string): void {
    this.#safely("handleRetrieverEnd", () =>
      this.#ended(this.#runs.end("handleRetrieverEnd", runId, () => ({ output: documents }))),
    );
  }

  override handleRetrieverError(err: Error, runId: string): void {
    this.#safely("handleRetrieverError", () => this.#ended(this.#runs.fail("handleRetrieverError", runId, err)));
  }

  override handleAgentAction(action: AgentAction, runId: string, parentRunId?: string): void {
    this.#safely("handleAgentAction", () => this.#runs.startAgentAction(action, runId, parentRunId));
  }

  override handleAgentEnd(finish: AgentFinish, runId: string): void {
    this.#safely("handleAgentEnd", () => this.#runs.finishAgent(finish, runId));
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
    this.#runs.start("generation", runId, parentRunId, runName(name, llm, "Langchain Generation"), tags, metadata, {
      input,
      model: modelNameAtStart(extraParams, metadata),
      modelParameters: modelParameters(extraParams),
      // A fallback prompt, which the server does not hold, is left out by the observation itself.
      prompt: parentRunId === undefined ? undefined : this.#prompts.take(parentRunId),
    });
  }

  #traceAttributes(tags?: string[], metadata?: Record<string, unknown>): PropagateAttributesParams {
    const allTags = [...new Set([...(tags ?? []), ...(this.#params.tags ?? [])])];
    return {
      userId: stringField(metadata, "svcUserId") ?? this.#params.userId,
      sessionId: stringField(metadata, "svcSessionId") ?? this.#params.sessionId,
      tags: allTags.length > 0 ? allTags : undefined,
      version: this.#params.version,
      metadata: this.#params.traceMetadata,
    };
  }

  #ended(run: RunState | undefined): void {
    if (run?.isTopLevel) this.last_trace_id = run.observation.traceId;
  }

  #registerPrompt(metadata: Record<string, unknown> | undefined, parentRunId: string | undefined): void {
    const value = metadata?.svcPrompt;
    if (value === undefined || parentRunId === undefined) return;
    const link = readPromptLink(value);
    if (typeof link === "string") {
      getGlobalLogger().warn(`CallbackHandler: metadata svcPrompt ignored: ${link}`);
      return;
    }
    this.#prompts.set(parentRunId, link);
  }

  #safely(what: string, fn: () => void): void {
    safely(`CallbackHandler: ${what}`, fn, repeats);
  }
}

const PARAM_NAMES = ["userId", "sessionId", "tags", "version", "traceMetadata", "updateRoot"] as const;

/**
 * A copy of the options, each read once and on its own (a field that cannot be read, or tags that are no list, are
 * left out); warns of an unknown option name and logs, at debug level, the options given.
 */
function readParams(params: unknown): CallbackHandlerParams {
  const given: Record<string, unknown> = {};
  for (const key of PARAM_NAMES) {
    const value = readField(params, key);
    if (value !== undefined) given[key] = value;
  }
  const { tags } = given;
  if (tags !== undefined && !Array.isArray(tags))
    repeats.warn("CallbackHandler: tags ignored", "CallbackHandler: tags ignored: not an array");
  if (typeof params === "object" && params !== null) {
    warnUnknownOptions("CallbackHandler", params, PARAM_NAMES);
    logStartup("CallbackHandler", () =>
      PARAM_NAMES.map((name) => {
        const value = given[name];
        return `${name}=${value === undefined ? "none" : Array.isArray(value) ? JSON.stringify(value) : show(value)}`;
      }),
    );
  }
  return { ...given, tags: Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === "string") : [] };
}

/** What a model run's end records: its output, the model the provider reported (over the one known at start), usage. */
function generationEnd(output: LLMResult): SvcGenerationAttributes {
  return { output: generationOutput(output), model: modelNameAtEnd(output), usageDetails: extractUsageDetails(output) };
}
