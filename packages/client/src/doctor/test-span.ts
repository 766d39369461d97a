import type { HrTime, SpanContext } from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A, type ReadableSpan, randomHex, SDK_VERSION, SVC_TRACER_NAME } from "@svc/core";

/** The environment the doctor's test span is recorded in, apart from the application's data. */
export const DOCTOR_ENVIRONMENT = "sdk-doctor";

/**
 * The doctor's test span: one short span of the svc tracer in the environment `sdk-doctor`, ended, as the span
 * processor hands spans to the encoder.
 */
export function doctorTestSpan(traceId: string, nowMs: number = Date.now()): ReadableSpan {
  const context: SpanContext = { traceId, spanId: randomHex(8), traceFlags: 1 };
  const end = hrTime(nowMs);
  return {
    name: "svc doctor test span",
    kind: 0,
    spanContext: () => context,
    parentSpanContext: undefined,
    startTime: hrTime(nowMs - 1),
    endTime: end,
    duration: [0, 1_000_000],
    status: { code: 0 },
    attributes: {
      [A.OBSERVATION_TYPE]: "span",
      [A.ENVIRONMENT]: DOCTOR_ENVIRONMENT,
      [A.OBSERVATION_INPUT]: "a test span sent by svc doctor",
    },
    links: [],
    events: [],
    ended: true,
    resource: { attributes: { "service.name": "svc-doctor" } },
    instrumentationScope: { name: SVC_TRACER_NAME, version: SDK_VERSION },
  };
}

function hrTime(ms: number): HrTime {
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}
