import { describeError, type ReadableSpan, RepeatLog } from "@svc/core";
import { PROCESSOR_NAME, type ShouldExportSpan } from "../config.js";
import { isDefaultExportSpan, scopeName } from "../span-filter.js";
import type { StartedSpan } from "./start.js";

/** Most scopes whose left-out spans are counted by name for the doctor; later ones are counted in the total only. */
const MAX_NAMED_SCOPES = 32;

/** A scope name that suggests model calls (an LLM client, an instrumentation of one, an agent or MCP library). */
const MODEL_CALL_SCOPE =
  /openai|anthropic|claude|gemini|genai|gen_ai|gen-ai|vertex|bedrock|mistral|cohere|groq|ollama|llm|langchain|langgraph|llama|openinference|traceloop|mcp|agent|ai-sdk/i;
/** Attribute keys that suggest a model call: OpenInference's and Traceloop's, the AI SDK's, token counts, models. */
const MODEL_CALL_KEY = /^(?:llm|ai|openinference|traceloop|genkit)[.:]|(?:^|[._])(?:model|usage|token_count)(?:[._]|$)/;

/** What the export filter reads of a span: enough to decide at start (for the app-root mark) and at end. */
export type FilterableSpan = Omit<StartedSpan, "setAttribute" | "parentSpanId">;

/** The filter stage: `shouldExportSpan` or the default filter; a throw drops the span; left-out spans are counted. */
export class FilterStage {
  readonly #modelCallScopes = new Map<string, number>();
  #filteredOut = 0;

  /**
   * Whether a span expected at its start is exported without asking again at its end: true for the default filter
   * (a span's scope does not change, attributes are only added), false for a custom one, which sees the ended span.
   */
  readonly acceptedAtStartStands: boolean;

  constructor(
    private readonly custom: ShouldExportSpan | undefined,
    private readonly repeats = new RepeatLog(),
  ) {
    this.acceptedAtStartStands = custom === undefined;
  }

  /** Whether an ended span is exported. */
  accepts(span: ReadableSpan): boolean {
    const accepted = this.#decide(span, true);
    if (!accepted) {
      this.#count(span);
      const kind = `${PROCESSOR_NAME}: spans filtered out (not exported)`;
      this.repeats.debug(kind, `${kind}: "${span.name}" from scope "${scopeName(span)}"`, { unit: "spans" });
    }
    return accepted;
  }

  /** Whether a starting span is expected to be exported, for the app-root mark; a throw means no (its end decides). */
  expects(span: FilterableSpan): boolean {
    return this.#decide(span, false);
  }

  /**
   * The spans the filter left out so far (grows only), and of those, by scope name (at most `MAX_NAMED_SCOPES`), the
   * spans whose scope name or attributes look like a model call.
   */
  filteredOut() {
    return { spans: this.#filteredOut, modelCallScopes: Object.fromEntries(this.#modelCallScopes) };
  }

  #count(span: ReadableSpan): void {
    this.#filteredOut++;
    const scope = scopeName(span);
    const known = this.#modelCallScopes.get(scope);
    if (known !== undefined) this.#modelCallScopes.set(scope, known + 1);
    else if (this.#modelCallScopes.size < MAX_NAMED_SCOPES && looksLikeModelCall(scope, span))
      this.#modelCallScopes.set(scope, 1);
  }

  #decide(span: FilterableSpan, atEnd: boolean): boolean {
    if (!this.custom) return isDefaultExportSpan(span as ReadableSpan);
    try {
      return this.custom({ otelSpan: span as ReadableSpan }) === true;
    } catch (error) {
      if (atEnd) {
        const kind = `${PROCESSOR_NAME}: shouldExportSpan threw; span not exported`;
        this.repeats.error(kind, `${kind}: "${span.name}": ${describeError(error)}`, { unit: "spans" });
      } else {
        const kind = `${PROCESSOR_NAME}: shouldExportSpan threw at a span's start (asked whether it is an app root); the span is asked again when it ends`;
        this.repeats.warn(kind, `${kind}: "${span.name}": ${describeError(error)}`, { unit: "spans" });
      }
      return false;
    }
  }
}

function looksLikeModelCall(scope: string, span: ReadableSpan): boolean {
  if (MODEL_CALL_SCOPE.test(scope)) return true;
  for (const key in span.attributes) if (MODEL_CALL_KEY.test(key)) return true;
  return false;
}
