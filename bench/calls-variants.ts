// Contenders for bench:calls that split v6's cost in two: the floor's calls with v6's span processor, and v6's
// calls with the floor's processor and exporter. The same spans and attributes as contenders/otel.ts and svc.ts,
// whose calls they reuse.
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { floorCalls, floorProcessor } from "./contenders/otel.ts";
import { svcCalls } from "./contenders/svc.ts";
import type { SinkTarget } from "./contenders/types.ts";

/** The floor's calls, v6's span processor (spans of the tracer scope the processor exports by default). */
export const floorCallsSvcProcessor = (target: SinkTarget) =>
  floorCalls(new SvcSpanProcessor({ ...target }) as unknown as SpanProcessor, { scope: "svc-sdk" });
/** The floor's calls and processor, with metadata written as v6 writes it, one attribute per key. */
export const floorCallsFlatMetadata = (target: SinkTarget) =>
  floorCalls(floorProcessor(target), { scope: "svc-sdk", flatMetadata: true });
/** v6's calls, the floor's processor and exporter. */
export const svcCallsFloorProcessor = (target: SinkTarget) => svcCalls(floorProcessor(target));
