export type { SvcOtelSpanAttribute } from "./attributes.js";
export { SVC_TRACER_NAME, SvcOtelSpanAttributes } from "./attributes.js";
export type { LogSink, SvcLogger } from "./logger.js";
export { configureGlobalLogger, getGlobalLogger, LogLevel, resolveLogLevel } from "./logger.js";
export { createTraceId } from "./trace-id.js";
export { SDK_VERSION } from "./version.js";
