import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from "@opentelemetry/api";

/** The parts of an ended span the processor reads, structural so both OpenTelemetry JS SDK lines (2.x, 3.x) fit. */
export interface ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  spanContext(): SpanContext;
  readonly parentSpanContext?: SpanContext | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links: Link[];
  readonly events: ReadonlyArray<{
    name: string;
    attributes?: Attributes;
    time: HrTime;
    droppedAttributesCount?: number;
  }>;
  readonly duration: HrTime;
  readonly ended: boolean;
  readonly resource: { readonly attributes: Attributes };
  readonly instrumentationScope?: { readonly name: string; readonly version?: string; readonly schemaUrl?: string };
  /** Older SDKs name the scope this way. */
  readonly instrumentationLibrary?: { readonly name: string; readonly version?: string };
  readonly droppedAttributesCount?: number;
  readonly droppedEventsCount?: number;
  readonly droppedLinksCount?: number;
}
