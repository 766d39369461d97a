// The span shape the processor reads lives in the core, with the OTLP encoders that read it.
export type { ReadableSpan } from "@svc/core";
