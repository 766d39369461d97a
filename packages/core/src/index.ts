// The private core, one module per concern. Built into @svc/tracing and served from there to the other packages as
// @svc/tracing/internal (ARCHITECTURE.md, decision 1): what is listed here is what those packages use, nothing more.
export type { SpanAttributeValues, SvcOtelSpanAttribute } from "./attributes.js";
export { isObject, parseJsonText, readPromptLink, SVC_TRACER_NAME, SvcOtelSpanAttributes } from "./attributes.js";
export type { Connection } from "./config/connection.js";
export { connectionSettings, OTLP_TRACES_PATH, resolveConnection } from "./config/connection.js";
export type { Env, EnvSource, OptionSpec, Parsed, Resolved } from "./config/options.js";
export {
  booleanOption,
  ENVIRONMENT_RULE,
  enumOption,
  environmentOption,
  functionOption,
  isValidEnvironment,
  logStartup,
  numberOption,
  objectOption,
  optionSettings,
  readEnv,
  resolveOptions,
  SOURCES,
  show,
  stringOption,
  stringRecordOption,
  warnUnknownOptions,
} from "./config/options.js";
export {
  ownTracingRepeaters,
  PROVIDER_OWN_TRACING,
  providerOwnTracing,
  readGenAiType,
  usageRepeaters,
} from "./genai-attributes.js";
export { readUsageDetails } from "./genai-usage.js";
export type { ExitParticipant, ExitWatch } from "./lifecycle/exit-hooks.js";
export { flushWatched, watchQueueForExit } from "./lifecycle/exit-hooks.js";
export { Limiter, mapLimit } from "./lifecycle/limiter.js";
export { loadOnce } from "./lifecycle/load-once.js";
export type { Settled, SettleWithinOptions } from "./lifecycle/settle-within.js";
export { settleWithin } from "./lifecycle/settle-within.js";
export { counted, describeError, messageOf, textOf } from "./log/describe.js";
export type { LoggerOptions, LogSink, SvcLogger } from "./log/logger.js";
export { configureGlobalLogger, getGlobalLogger, isLogLevelEnabled, LogLevel } from "./log/logger.js";
export type { RepeatLineOptions } from "./log/repeat-log.js";
export { RepeatLog } from "./log/repeat-log.js";
export { isThenable, safely, warnSkipped } from "./log/safely.js";
export { redactSecrets } from "./log/secrets.js";
export { BASE64_MARKER, findDataUris, parseDataUri } from "./media/data-uri.js";
export { downloadMedia } from "./media/download.js";
export type { MediaHash } from "./media/hash.js";
export { mediaHash, mediaIdOf } from "./media/hash.js";
export type { MediaReferenceParts } from "./media/reference.js";
export { formatMediaReference, MEDIA_REFERENCE_PATTERN, parseMediaReference } from "./media/reference.js";
export { MediaUploader } from "./media/upload.js";
export type { MediaServer, MediaUpload, MediaUploadResult } from "./media/upload-once.js";
export { isPlainObject, writeMetadata } from "./metadata.js";
export type { OtlpProtocol } from "./otlp/encode.js";
export { compressionOption, encodeTraces, OTLP_CONTENT_TYPES, protocolOption } from "./otlp/encode.js";
export type { ExportItem, ReadableSpan } from "./otlp/otlp-request.js";
export { BatchQueue } from "./queue/batch-queue.js";
export { serverOf } from "./queue/flush-wait.js";
export type { DeliveryHealth, DeliveryMeterProvider, DropReason, Fault, SendOutcome } from "./queue/health.js";
export { meterProviderOption } from "./queue/health.js";
export type { BatchQueueOptions, FlushResult } from "./queue/send.js";
export { failedOutcome, outcomeOf, sendInHalves, tooLargeOutcome } from "./queue/send.js";
export type { ObservationFields, SpanFacts, TraceFields } from "./read-observation-attributes.js";
export { readObservationFields, readTraceFields } from "./read-observation-attributes.js";
export {
  CIRCULAR_MARKER,
  cutAtCodePoint,
  FAILED_TO_SERIALIZE,
  MAX_DEPTH_MARKER,
  MAX_NAME_LENGTH,
  MAX_SERIALIZE_DEPTH,
  MAX_SERIALIZED_LENGTH,
  noteUnreadable,
  ownKeys,
  readField,
  readItem,
  serializeValue,
  stableText,
  toJsonSafe,
  truncateText,
} from "./serialize.js";
export type { SpillOwner, SpillReport } from "./spill/spill.js";
export { Spill } from "./spill/spill.js";
export type { SpillFs, SpillSettings } from "./spill/spill-settings.js";
export { SPILL_SPECS, spillSettings } from "./spill/spill-settings.js";
export type { SpillFile, SpillHeader, SpillListing } from "./spill/spill-store.js";
export { SpillStore } from "./spill/spill-store.js";
export { randomHex, toHex } from "./tracing/ids.js";
export type { ProcessorProbe } from "./tracing/processor-presence.js";
export {
  countProcessorStart,
  processorProbes,
  processorStarts,
  registerProcessorProbe,
  warnUnprocessedObservation,
} from "./tracing/processor-presence.js";
export {
  buildPropagationContext,
  getPropagatedAttributes,
  hasTraceIdClaim,
  propagateSpanAttributes,
  withTraceIdClaim,
} from "./tracing/propagation.js";
export { sampleRateOption, traceSampler } from "./tracing/sampling.js";
export { getSvcTracer, getSvcTracerProvider, setSvcTracerProvider } from "./tracing/tracer-provider.js";
export type { AttemptRequest, AttemptResponse, Backend } from "./transport/backend.js";
export { fetchBackend } from "./transport/backend.js";
export { describeFailure, failureHint, KEYS_HINT, placeOf } from "./transport/failure-text.js";
export type { HttpFailure, HttpMethod, HttpRequest, HttpResponse, HttpResult, RedirectStop } from "./transport/http.js";
export { httpRequest, isLocalHost, parseHttpUrl, suppressed } from "./transport/http.js";
export { apiHeaders, basicAuth, identityHeaders, mergeHeaders, otlpHeaders, toBase64 } from "./transport/identity.js";
export type { TransportTestHook } from "./transport/interceptor.js";
export { setTransportInterceptor } from "./transport/interceptor.js";
export { MAX_RETRIES_CAP, retryDelayMs, sleep } from "./transport/retry.js";
export { nodeBuiltin } from "./transport/runtime.js";
export { SDK_VERSION } from "./version.js";
