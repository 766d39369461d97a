export type { SvcOtelSpanAttribute } from "./attributes.js";
export { SVC_TRACER_NAME, SvcOtelSpanAttributes } from "./attributes.js";
export type { LogSink, SvcLogger } from "./logger.js";
export { configureGlobalLogger, getGlobalLogger, LogLevel, resolveLogLevel } from "./logger.js";
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
export { createObservationAttributes } from "./observation-attributes.js";
export { MAX_CAPTURED_YIELDS, observe } from "./observe.js";
export type { PropagateAttributesParams, PropagatedPromptInput } from "./propagate-attributes.js";
export { propagateAttributes } from "./propagate-attributes.js";
export type { PropagateSpanAttributesOptions } from "./propagation.js";
export {
  getPropagatedAttributes,
  hasTraceIdClaim,
  propagateSpanAttributes,
  SVC_PROPAGATED_ATTRIBUTES_KEY,
  SVC_TRACE_ID_BAGGAGE_KEY,
} from "./propagation.js";
export type { RepeatLogOptions } from "./repeat-log.js";
export {
  DEFAULT_REPEAT_MAX_KINDS,
  DEFAULT_REPEAT_SUMMARY_INTERVAL_MS,
  RepeatLog,
  reportRepeatedLogs,
} from "./repeat-log.js";
export {
  CIRCULAR_MARKER,
  FAILED_TO_SERIALIZE,
  MAX_DEPTH_MARKER,
  MAX_METADATA_PATH_DEPTH,
  MAX_METADATA_PATHS,
  MAX_SERIALIZE_DEPTH,
  MAX_SERIALIZED_LENGTH,
  serializeValue,
} from "./serialize.js";
export {
  getActiveSpanId,
  getActiveTraceId,
  setActiveTraceAsPublic,
  startActiveObservation,
  startObservation,
  updateActiveObservation,
} from "./start-observation.js";
export { createTraceId } from "./trace-id.js";
export { getSvcTracer, getSvcTracerProvider, setSvcTracerProvider } from "./tracer-provider.js";
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
export { SDK_VERSION } from "./version.js";
