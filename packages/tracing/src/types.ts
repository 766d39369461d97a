import type { SpanContext } from "@opentelemetry/api";

/** The kinds of observation the svc server knows. */
export type SvcObservationType =
  | "span"
  | "generation"
  | "event"
  | "agent"
  | "tool"
  | "chain"
  | "retriever"
  | "evaluator"
  | "guardrail"
  | "embedding";

/** Severity of an observation. `ERROR` marks failed work. */
export type ObservationLevel = "DEBUG" | "DEFAULT" | "WARNING" | "ERROR";

/** Attributes every observation type accepts. */
export interface SvcSpanAttributes {
  /** Input of the work; strings as-is, other values as JSON. On the root observation it is the trace input. */
  input?: unknown;
  /** Output of the work; strings as-is, other values as JSON. On the root observation it is the trace output. */
  output?: unknown;
  /** Free-form metadata; a plain object is written per key (numbers and booleans keep their type). */
  metadata?: unknown;
  /** Severity. */
  level?: ObservationLevel;
  /** Explains the level, typically an error message. */
  statusMessage?: string;
  /** Version of the code or prompt that produced this observation. */
  version?: string;
  /** Deployment environment, such as `production`. */
  environment?: string;
}

/** A prompt to link a generation to. A fallback prompt is never linked. */
export interface SvcPromptReference {
  name: string;
  version: number;
  isFallback?: boolean;
}

/** Attributes of a model call: generation attributes add model, usage and cost to the span attributes. */
export interface SvcGenerationAttributes extends SvcSpanAttributes {
  /** When the first token arrived. */
  completionStartTime?: Date;
  /** Model name. */
  model?: string;
  /** Model parameters such as `temperature`. */
  modelParameters?: Record<string, string | number | boolean | null | undefined>;
  /** Token counts by kind, such as `{ input: 10, output: 20, total: 30 }`. */
  usageDetails?: Record<string, number>;
  /** Costs by kind, such as `{ total: 0.002 }`. */
  costDetails?: Record<string, number>;
  /** Prompt used for the call. */
  prompt?: SvcPromptReference;
}

/** Attributes of an event (a point in time). */
export type SvcEventAttributes = SvcSpanAttributes;
/** Attributes of an agent observation. */
export type SvcAgentAttributes = SvcSpanAttributes;
/** Attributes of a tool call. */
export type SvcToolAttributes = SvcSpanAttributes;
/** Attributes of a chain observation. */
export type SvcChainAttributes = SvcSpanAttributes;
/** Attributes of a retrieval step. */
export type SvcRetrieverAttributes = SvcSpanAttributes;
/** Attributes of an evaluator run. */
export type SvcEvaluatorAttributes = SvcSpanAttributes;
/** Attributes of a guardrail check. */
export type SvcGuardrailAttributes = SvcSpanAttributes;
/** Attributes of an embedding call (the generation attributes). */
export type SvcEmbeddingAttributes = SvcGenerationAttributes;

/** Attributes of any observation type. */
export type SvcObservationAttributes = SvcSpanAttributes & SvcGenerationAttributes;

/** Attribute type for each observation type. */
export interface SvcAttributesByType {
  span: SvcSpanAttributes;
  generation: SvcGenerationAttributes;
  event: SvcEventAttributes;
  agent: SvcAgentAttributes;
  tool: SvcToolAttributes;
  chain: SvcChainAttributes;
  retriever: SvcRetrieverAttributes;
  evaluator: SvcEvaluatorAttributes;
  guardrail: SvcGuardrailAttributes;
  embedding: SvcEmbeddingAttributes;
}

/** Options of {@link startObservation}. */
export interface StartObservationOptions<T extends SvcObservationType = SvcObservationType> {
  /** Observation type. @defaultValue "span" */
  asType?: T;
  /** Start time. @defaultValue now */
  startTime?: Date;
  /** Parent to attach to instead of the active span, for example `parent.otelSpan.spanContext()`. */
  parentSpanContext?: SpanContext;
}

/** The v5 name of {@link StartObservationOptions}. */
export type StartObservationOpts<T extends SvcObservationType = SvcObservationType> = StartObservationOptions<T>;

/** Options of {@link startActiveObservation}. */
export interface StartActiveObservationOpts<T extends SvcObservationType = SvcObservationType>
  extends StartObservationOptions<T> {
  /** End the observation when the callback returns, throws or settles. @defaultValue true */
  endOnExit?: boolean;
}

/** Options of {@link observe}. */
export interface ObserveOptions<T extends SvcObservationType = SvcObservationType> {
  /** Observation name. @defaultValue the function's name, else `"anonymous-function"` */
  name?: string;
  /** Observation type. @defaultValue "span" */
  asType?: T;
  /** Record the arguments as input (one argument as itself, several as an array). @defaultValue true */
  captureInput?: boolean;
  /** Record the return value (or resolved value, or yielded items) as output. @defaultValue true */
  captureOutput?: boolean;
  /** Parent to attach to instead of the active span. */
  parentSpanContext?: SpanContext;
  /** End the observation when the function returns, throws or settles. @defaultValue true */
  endOnExit?: boolean;
}
