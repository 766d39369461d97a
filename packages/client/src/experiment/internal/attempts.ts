import { SpanStatusCode } from "@opentelemetry/api";
import { messageOf, retryDelayMs, type Settled, settleWithin, sleep } from "@svc/core";
import { startActiveObservation } from "@svc/tracing";
import type { ExperimentTaskContext } from "../types.js";

/** Name of the child span of each attempt, when a run has retries. */
export const ATTEMPT_SPAN_NAME = "experiment-item-attempt";

/** How the attempts of one item ended. */
export type AttemptsOutcome =
  | { kind: "ok"; output: unknown; attempts: number }
  | { kind: "failed" | "timeout"; error: string; attempts: number }
  | { kind: "aborted"; attempts: number };

/** The settings that shape the attempts of every item of a run. */
export interface AttemptSettings {
  maxRetries: number;
  itemTimeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  /** Called when an attempt failed and another one follows (before the wait between them). */
  onRetry?: () => void;
}

type Call = (context: ExperimentTaskContext) => unknown;

/**
 * Calls the task until it returns, at most `maxRetries + 1` times, each attempt bounded by `itemTimeoutMs` and by
 * the run's signal, waiting out the core backoff between attempts (the wait ends early when the run is aborted).
 * With retries, each attempt runs in a child span of its own, so the trace shows every attempt. Never rejects.
 */
export async function runAttempts(call: Call, settings: AttemptSettings): Promise<AttemptsOutcome> {
  const { maxRetries, signal } = settings;
  const total = maxRetries + 1;
  let last: AttemptsOutcome = { kind: "aborted", attempts: 0 };
  for (let attempt = 1; attempt <= total; attempt++) {
    if (signal?.aborted) return { kind: "aborted", attempts: attempt - 1 };
    const settled =
      maxRetries > 0
        ? await inAttemptSpan(attempt, total, settings, () => attemptOnce(call, attempt, settings))
        : await attemptOnce(call, attempt, settings);
    if (settled.kind === "value") return { kind: "ok", output: settled.value, attempts: attempt };
    if (settled.kind === "aborted") return { kind: "aborted", attempts: attempt };
    last = {
      kind: settled.kind === "timeout" ? "timeout" : "failed",
      error: failureText(settled, settings),
      attempts: attempt,
    };
    if (attempt === total) break;
    settings.onRetry?.();
    try {
      await sleep(retryDelayMs(attempt - 1), signal);
    } catch {
      return { kind: "aborted", attempts: attempt };
    }
  }
  return last;
}

function attemptOnce(call: Call, attempt: number, settings: AttemptSettings): Promise<Settled<unknown>> {
  return settleWithin((signal) => call({ signal, attempt }), {
    timeoutMs: settings.itemTimeoutMs,
    signal: settings.signal,
  });
}

async function inAttemptSpan(
  attempt: number,
  total: number,
  settings: AttemptSettings,
  run: () => Promise<Settled<unknown>>,
): Promise<Settled<unknown>> {
  return startActiveObservation(
    ATTEMPT_SPAN_NAME,
    async (span) => {
      span.update({ metadata: { attempt, maxAttempts: total } });
      const settled = await run();
      if (settled.kind === "aborted") {
        span.update({ level: "WARNING", statusMessage: ABANDONED });
      } else if (settled.kind !== "value") {
        const message = failureText(settled, settings);
        span.update({ level: "ERROR", statusMessage: message });
        span.otelSpan.setStatus({ code: SpanStatusCode.ERROR, message });
      }
      return settled;
    },
    { asType: "span" },
  );
}

/** Status message of an item or attempt abandoned because the run was aborted. */
export const ABANDONED = "abandoned: the run was aborted";

function failureText(settled: Settled<unknown>, settings: AttemptSettings): string {
  if (settled.kind === "timeout") return `timed out after ${settings.itemTimeoutMs} ms`;
  return settled.kind === "error" ? messageOf(settled.error) : ABANDONED;
}
