// `@svc/otel/testing`: assert on your own instrumentation in vitest or jest, without a server.
export type { DeliveryHealth, DropReason, ReadableSpan } from "@svc/core";
export type { MaskFunction, ShouldExportSpan } from "../config.js";
export type { TestObservation, TestTrace, TestTraceAttributes } from "./observations.js";
export type { TestMedia, TestScore } from "./sink.js";
export {
  installSvcTestKit,
  type SvcTestData,
  type SvcTestKit,
  type SvcTestKitOptions,
  type TestTracerProvider,
  type TestTracerProviderClass,
} from "./test-kit.js";
