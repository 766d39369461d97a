import {
  type Attributes,
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  type Span,
  SpanStatusCode,
  type TimeInput,
  trace,
} from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  describeError,
  getPropagatedAttributes,
  getSvcTracer,
  MAX_NAME_LENGTH,
  messageOf,
  processorStarts,
  readField,
  safely,
  serializeValue,
  stableText,
  truncateText,
  warnSkipped,
  warnUnprocessedObservation,
} from "@svc/core";
import { repeats, validTime } from "./internal/options.js";
import type {
  SvcAgentAttributes,
  SvcAttributesByType,
  SvcChainAttributes,
  SvcEmbeddingAttributes,
  SvcEvaluatorAttributes,
  SvcGenerationAttributes,
  SvcGuardrailAttributes,
  SvcObservationAttributes,
  SvcObservationType,
  SvcRetrieverAttributes,
  SvcSpanAttributes,
  SvcToolAttributes,
} from "./types.js";
import { writeObservationAttributes } from "./write-observation-attributes.js";

/** Options of {@link SvcObservationBase.startObservation}. */
export interface StartChildObservationOptions<T extends SvcObservationType = SvcObservationType> {
  /** Observation type. @defaultValue "span" */
  asType?: T;
  /** Start time. @defaultValue now */
  startTime?: Date;
}

/** What every observation offers: the underlying span, ids, children, ending. */
export abstract class SvcObservationBase {
  /** The OpenTelemetry span behind this observation. */
  readonly otelSpan: Span;
  /** Observation type. */
  readonly type: SvcObservationType;

  /** Wraps an OpenTelemetry span as an observation of `type`; `startObservation` and its siblings create them. */
  constructor(otelSpan: Span, type: SvcObservationType) {
    this.otelSpan = otelSpan;
    this.type = type;
  }

  /** Span id of this observation (16 hex characters). */
  get id(): string {
    return this.otelSpan.spanContext().spanId;
  }

  /** Trace id of this observation (32 hex characters). */
  get traceId(): string {
    return this.otelSpan.spanContext().traceId;
  }

  /** Ends the observation, now or at `endTime`. Ending twice has no further effect. */
  end(endTime?: TimeInput): void {
    try {
      this.otelSpan.end(validTime(endTime, "observation.end"));
    } catch (err) {
      warnSkipped("observation.end", err);
    }
  }

  /** Starts a child observation with this one as parent; the child is not made active. */
  startObservation<T extends SvcObservationType = "span">(
    name: string,
    attributes?: SvcAttributesByType[T],
    options?: StartChildObservationOptions<T>,
  ): SvcObservationByType[T] {
    const type = (readField<T>(options, "asType") ?? "span") as T;
    const startTime = validTime(readField(options, "startTime"), "startObservation");
    return createObservation(name, attributes, type, startTime, trace.setSpan(context.active(), this.otelSpan));
  }

  /** Makes the whole trace viewable by anyone with its link. */
  setTraceAsPublic(): this {
    safely("setTraceAsPublic", () => this.otelSpan.setAttribute(A.TRACE_PUBLIC, true));
    return this;
  }
}

/** An observation whose attributes can be updated until it ends. */
export abstract class SvcUpdatableObservation<TAttributes extends SvcSpanAttributes> extends SvcObservationBase {
  /** Sets attributes; values are serialized now. Returns the observation. */
  update(attributes: TAttributes): this {
    try {
      const out: Attributes = {};
      writeObservationAttributes(out, attributes as SvcObservationAttributes);
      this.otelSpan.setAttributes(out);
    } catch (err) {
      warnSkipped("observation.update", err);
    }
    return this;
  }
}

/** A unit of work with a duration: the default observation type. */
export class SvcSpan extends SvcUpdatableObservation<SvcSpanAttributes> {}
/** A model call, with model, usage, cost and prompt. */
export class SvcGeneration extends SvcUpdatableObservation<SvcGenerationAttributes> {}
/** A point in time; ends as soon as it is created. */
export class SvcEvent extends SvcObservationBase {}
/** An agent deciding and acting. */
export class SvcAgent extends SvcUpdatableObservation<SvcAgentAttributes> {}
/** A tool call. */
export class SvcTool extends SvcUpdatableObservation<SvcToolAttributes> {}
/** A chain of steps. */
export class SvcChain extends SvcUpdatableObservation<SvcChainAttributes> {}
/** A retrieval step, such as a vector search. */
export class SvcRetriever extends SvcUpdatableObservation<SvcRetrieverAttributes> {}
/** An evaluator run. */
export class SvcEvaluator extends SvcUpdatableObservation<SvcEvaluatorAttributes> {}
/** A guardrail check. */
export class SvcGuardrail extends SvcUpdatableObservation<SvcGuardrailAttributes> {}
/** An embedding call, with the generation attributes. */
export class SvcEmbedding extends SvcUpdatableObservation<SvcEmbeddingAttributes> {}

/** The observation class for each observation type. */
export interface SvcObservationByType {
  span: SvcSpan;
  generation: SvcGeneration;
  event: SvcEvent;
  agent: SvcAgent;
  tool: SvcTool;
  chain: SvcChain;
  retriever: SvcRetriever;
  evaluator: SvcEvaluator;
  guardrail: SvcGuardrail;
  embedding: SvcEmbedding;
}

/** Any observation. */
export type SvcObservation = SvcObservationByType[SvcObservationType];

const CLASSES: { [T in SvcObservationType]: new (span: Span, type: T) => SvcObservationByType[T] } = {
  span: SvcSpan,
  generation: SvcGeneration,
  event: SvcEvent,
  agent: SvcAgent,
  tool: SvcTool,
  chain: SvcChain,
  retriever: SvcRetriever,
  evaluator: SvcEvaluator,
  guardrail: SvcGuardrail,
  embedding: SvcEmbedding,
};

/**
 * Starts a span with the svc tracer under `parent`, with the propagated attributes of `parent`
 * and the observation's own attributes (which win). Never throws: on failure it logs and returns
 * an observation over a non-recording span.
 */
export function createObservation<T extends SvcObservationType>(
  name: unknown,
  attributes: SvcAttributesByType[T] | undefined,
  requestedType: T,
  startTime: TimeInput | undefined,
  parent: Context,
): SvcObservationByType[T] {
  const spanName = truncateText(stableText(name), MAX_NAME_LENGTH);
  let type: SvcObservationType = requestedType;
  if (typeof type !== "string" || !Object.hasOwn(CLASSES, type)) {
    const given = truncateText(stableText(type), 100);
    repeats.warn(UNKNOWN_TYPE, `${UNKNOWN_TYPE} ${given}; using span (name="${spanName}")`);
    type = "span";
  }
  const Class = CLASSES[type] as new (span: Span, type: SvcObservationType) => SvcObservationByType[T];
  try {
    const out: Attributes = { ...getPropagatedAttributes(parent), [A.OBSERVATION_TYPE]: type };
    if (attributes) writeObservationAttributes(out, attributes as SvcObservationAttributes);
    const seen = processorStarts();
    const span = getSvcTracer().startSpan(spanName, { attributes: out, startTime }, parent);
    if (processorStarts() === seen) warnUnprocessedObservation(spanName, span);
    if (type === "event") span.end(startTime);
    return new Class(span, type);
  } catch (err) {
    const kind = "startObservation: span not recorded";
    repeats.warn(kind, `${kind}: ${describeError(err)} (name="${spanName}")`);
    return new Class(trace.wrapSpanContext(INVALID_SPAN_CONTEXT), type);
  }
}

const UNKNOWN_TYPE = "startObservation: unknown observation type";

/** Records a thrown value on the observation: level ERROR, status message, OTel status ERROR. */
export function markFailed(observation: SvcObservationBase, err: unknown, fallbackMessage: string): void {
  safely("record error", () => {
    const message = messageOf(err) || fallbackMessage;
    observation.otelSpan.setAttributes({ [A.OBSERVATION_LEVEL]: "ERROR", [A.OBSERVATION_STATUS_MESSAGE]: message });
    observation.otelSpan.setStatus({ code: SpanStatusCode.ERROR, message });
  });
}

/** Records `value` as the observation's output (serialized now). */
export function setOutput(observation: SvcObservationBase, value: unknown): void {
  safely("record output", () => {
    const text = serializeValue(value);
    if (text !== undefined) observation.otelSpan.setAttribute(A.OBSERVATION_OUTPUT, text);
  });
}
