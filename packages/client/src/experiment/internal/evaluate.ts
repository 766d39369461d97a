import { messageOf, type Settled, type SettleWithinOptions, settleWithin } from "@svc/core";
import type { Evaluation, EvaluationFailure } from "../types.js";

/** Evaluations that were produced, and the evaluators that failed. */
export interface EvaluationOutcome {
  evaluations: Evaluation[];
  failures: EvaluationFailure[];
}

type AnyEvaluator<P> = (params: P) => Evaluation | Evaluation[] | Promise<Evaluation | Evaluation[]>;

/**
 * Calls every evaluator with `params`, all at once, each for at most `timeoutMs` and no longer than `signal` stays
 * unaborted. A throw, a rejection, a time-out, an abort or an invalid evaluation is recorded as a failure of that
 * evaluator; the valid evaluations of the others are kept, in order.
 */
export async function runEvaluators<P>(
  evaluators: readonly AnyEvaluator<P>[],
  params: P,
  bounds: SettleWithinOptions = {},
): Promise<EvaluationOutcome> {
  const settled = await Promise.all(evaluators.map((evaluate) => settleWithin(() => evaluate(params), bounds)));
  const outcome: EvaluationOutcome = { evaluations: [], failures: [] };
  settled.forEach((result, index) => {
    const evaluator = evaluatorName(evaluators[index], index);
    if (result.kind !== "value") {
      outcome.failures.push({ evaluator, message: failureMessage(result, bounds.timeoutMs) });
      return;
    }
    for (const evaluation of Array.isArray(result.value) ? result.value : [result.value]) {
      const problem = invalidEvaluationReason(evaluation);
      if (problem) outcome.failures.push({ evaluator, message: `returned an invalid evaluation: ${problem}` });
      else outcome.evaluations.push(evaluation);
    }
  });
  return outcome;
}

function failureMessage(result: Settled<unknown>, timeoutMs: number | undefined): string {
  if (result.kind === "timeout") return `did not settle within ${timeoutMs} ms`;
  if (result.kind === "aborted") return "abandoned: the run was aborted";
  return result.kind === "error" ? messageOf(result.error) : "";
}

function evaluatorName(evaluator: unknown, index: number): string {
  const name = typeof evaluator === "function" ? evaluator.name : "";
  return name ? `evaluator ${name}` : `evaluator #${index + 1}`;
}

/** Why `value` is not a usable evaluation, or `undefined` when it is one. */
export function invalidEvaluationReason(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null)
    return `expected an object, got ${value === null ? "null" : typeof value}`;
  const { name, value: score } = value as Partial<Evaluation>;
  if (typeof name !== "string" || name.length === 0) return "name must be a non-empty string";
  const valid =
    (typeof score === "number" && Number.isFinite(score)) || typeof score === "string" || typeof score === "boolean";
  if (!valid) return `value must be a finite number, a string or a boolean (name="${name}")`;
  return undefined;
}
