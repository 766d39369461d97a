import { describeError, RepeatLog } from "@svc/core";
import { PROCESSOR_NAME, type ShouldExportSpan } from "../config.js";
import type { ReadableSpan } from "../readable-span.js";
import { isDefaultExportSpan } from "../span-filter.js";
import type { StartedSpan } from "./start.js";

/** What the export filter reads of a span: enough to decide at start (for the app-root mark) and at end. */
export type FilterableSpan = Omit<StartedSpan, "setAttribute" | "parentSpanId">;

/**
 * The filter stage: the user's `shouldExportSpan`, or the default filter. A filter that throws drops that span
 * (logged, then counted); a span filtered out is logged at debug level (then counted).
 */
export class FilterStage {
  readonly #repeats = new RepeatLog();

  /**
   * Whether a span expected at its start is exported without asking again at its end: true for the default filter,
   * whose yes cannot turn into a no (a span's scope does not change, and attributes are only added); false for a
   * custom filter, which sees the ended span.
   */
  readonly acceptedAtStartStands: boolean;

  constructor(private readonly custom: ShouldExportSpan | undefined) {
    this.acceptedAtStartStands = custom === undefined;
  }

  /** Whether an ended span is exported. */
  accepts(span: ReadableSpan): boolean {
    const accepted = this.#decide(span, true);
    if (!accepted) {
      const kind = `${PROCESSOR_NAME}: spans filtered out (not exported)`;
      this.#repeats.debug(kind, `${kind}: "${span.name}" from scope "${scopeName(span)}"`, { unit: "spans" });
    }
    return accepted;
  }

  /**
   * Whether a starting span is expected to be exported, for the app-root mark. The user's filter sees the span
   * as it is at start (as in the previous major); a throw there means "not expected" and is logged (once, then
   * counted): the same filter runs again on the ended span, whose answer decides.
   */
  expects(span: FilterableSpan): boolean {
    return this.#decide(span, false);
  }

  /** Logs the counts of repeated lines. */
  report(options: { dueOnly?: boolean } = {}): void {
    this.#repeats.report(options);
  }

  #decide(span: FilterableSpan, atEnd: boolean): boolean {
    if (!this.custom) return isDefaultExportSpan(span as ReadableSpan);
    try {
      return this.custom({ otelSpan: span as ReadableSpan }) === true;
    } catch (error) {
      if (atEnd) {
        const kind = `${PROCESSOR_NAME}: shouldExportSpan threw; span not exported`;
        this.#repeats.error(kind, `${kind}: "${span.name}": ${describeError(error)}`, { unit: "spans" });
      } else {
        const kind = `${PROCESSOR_NAME}: shouldExportSpan threw at a span's start (asked whether it is an app root); the span is asked again when it ends`;
        this.#repeats.warn(kind, `${kind}: "${span.name}": ${describeError(error)}`, { unit: "spans" });
      }
      return false;
    }
  }
}

function scopeName(span: ReadableSpan): string {
  return span.instrumentationScope?.name ?? span.instrumentationLibrary?.name ?? "";
}
