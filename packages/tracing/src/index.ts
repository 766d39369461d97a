export type { LoggerOptions, LogSink, SvcLogger, SvcOtelSpanAttribute } from "@svc/core";
export {
  CIRCULAR_MARKER,
  configureGlobalLogger,
  FAILED_TO_SERIALIZE,
  getGlobalLogger,
  getSvcTracer,
  getSvcTracerProvider,
  LogLevel,
  MAX_DEPTH_MARKER,
  MAX_SERIALIZE_DEPTH,
  MAX_SERIALIZED_LENGTH,
  SDK_VERSION,
  SVC_TRACER_NAME,
  SvcOtelSpanAttributes,
  setSvcTracerProvider,
} from "@svc/core";
export type { StartChildObservationOptions, SvcObservation, SvcObservationByType } from "./observation.js";
export {
  SvcAgent,
  SvcChain,
  SvcEmbedding,
  SvcEvaluator,
  SvcEvent,
  SvcGeneration,
  SvcGuardrail,
  SvcObservationBase,
  SvcRetriever,
  SvcSpan,
  SvcTool,
  SvcUpdatableObservation,
} from "./observation.js";
export { observe } from "./observe.js";
export type { PropagateAttributesParams, PropagatedPromptInput } from "./propagate-attributes.js";
export { propagateAttributes } from "./propagate-attributes.js";
export {
  getActiveSpanId,
  getActiveTraceId,
  setActiveTraceAsPublic,
  startActiveObservation,
  startObservation,
  updateActiveObservation,
} from "./start-observation.js";
export { createTraceId } from "./trace-id.js";
export type {
  ObservationLevel,
  ObserveOptions,
  StartActiveObservationOpts,
  StartObservationOptions,
  StartObservationOpts,
  SvcAgentAttributes,
  SvcAttributesByType,
  SvcChainAttributes,
  SvcEmbeddingAttributes,
  SvcEvaluatorAttributes,
  SvcEventAttributes,
  SvcGenerationAttributes,
  SvcGuardrailAttributes,
  SvcObservationAttributes,
  SvcObservationType,
  SvcPromptReference,
  SvcRetrieverAttributes,
  SvcSpanAttributes,
  SvcToolAttributes,
} from "./types.js";
export { createObservationAttributes } from "./write-observation-attributes.js";
