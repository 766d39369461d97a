import { type Attributes, trace } from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A, readField, safely, stableText, truncateText } from "@svc/core";
import { isCallable, validTime, warnOnce } from "./internal/options.js";
import { activeContext, parentContext, type RunMode, runObserved } from "./internal/run.js";
import { createObservation, type SvcObservationByType } from "./observation.js";
import type {
  StartActiveObservationOpts,
  StartObservationOptions,
  SvcAttributesByType,
  SvcObservationAttributes,
  SvcObservationType,
} from "./types.js";
import { writeObservationAttributes } from "./write-observation-attributes.js";

/**
 * Starts an observation as a child of the active span (or of `parentSpanContext`) without making it
 * active. End it with `end()`; events end at once. Never throws.
 * @example
 * const generation = startObservation("llm-call", { model: "gpt-4o", input: messages }, { asType: "generation" });
 * generation.update({ output: reply, usageDetails: { input: 12, output: 40 } }).end();
 */
export function startObservation<T extends SvcObservationType = "span">(
  name: string,
  attributes?: SvcAttributesByType[T],
  options?: StartObservationOptions<T>,
): SvcObservationByType[T] {
  const type = (readField<T>(options, "asType") ?? "span") as T;
  const startTime = validTime(readField(options, "startTime"), "startObservation");
  const parent = parentContext(readField(options, "parentSpanContext"));
  return createObservation(name, attributes, type, startTime, parent);
}

/**
 * Runs `fn` with a new observation active, so that observations started inside it (also after
 * `await`) become its children. The observation ends when `fn` returns, throws or its promise
 * settles, unless `endOnExit` is false; a throw or rejection is recorded as level ERROR and passed on
 * unchanged. Returns what `fn` returns.
 * @example
 * const answer = await startActiveObservation("handle-question", async (span) => {
 *   span.update({ input: question });
 *   const text = await answerQuestion(question);
 *   span.update({ output: text });
 *   return text;
 * });
 */
export function startActiveObservation<R, T extends SvcObservationType = "span">(
  name: string,
  fn: (observation: SvcObservationByType[T]) => R,
  options?: StartActiveObservationOpts<T>,
): R {
  const type = (readField<T>(options, "asType") ?? "span") as T;
  const startTime = validTime(readField(options, "startTime"), "startActiveObservation");
  const parent = parentContext(readField(options, "parentSpanContext"));
  const observation = createObservation(name, undefined, type, startTime, parent);
  if (!isCallable(fn, "startActiveObservation")) {
    observation.end();
    return undefined as R;
  }
  const mode = readField(options, "endOnExit") === false ? ACTIVE_KEPT_OPEN : ACTIVE;
  return runObserved(observation, activeContext(parent, observation), mode, fn, undefined, observation) as R;
}

const ACTIVE: RunMode = { captureOutput: false, endOnExit: true, failMessage: "Unknown error", generators: false };
const ACTIVE_KEPT_OPEN: RunMode = { ...ACTIVE, endOnExit: false };

/**
 * Updates the active observation. With `asType`, also sets its type (for example to mark a span
 * started by another library as a generation). Without an active observation, logs a warning.
 */
export function updateActiveObservation<T extends SvcObservationType = "span">(
  attributes: SvcAttributesByType[T],
  options?: { asType?: T },
): void {
  const span = trace.getActiveSpan();
  if (span === undefined) {
    warnOnce("updateActiveObservation: no active observation; update dropped");
    return;
  }
  safely("updateActiveObservation", () => {
    const out: Attributes = {};
    const asType = readField(options, "asType");
    if (asType !== undefined) out[A.OBSERVATION_TYPE] = truncateText(stableText(asType), 100);
    writeObservationAttributes(out, attributes as SvcObservationAttributes);
    span.setAttributes(out);
  });
}

/** Makes the active trace viewable by anyone with its link. Without an active observation, logs a warning. */
export function setActiveTraceAsPublic(): void {
  const span = trace.getActiveSpan();
  if (span === undefined) {
    warnOnce("setActiveTraceAsPublic: no active observation; nothing made public");
    return;
  }
  safely("setActiveTraceAsPublic", () => span.setAttribute(A.TRACE_PUBLIC, true));
}

/** Trace id of the active span, or `undefined` outside of one. */
export function getActiveTraceId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().traceId;
}

/** Span id of the active span (the active observation's `id`), or `undefined` outside of one. */
export function getActiveSpanId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().spanId;
}
