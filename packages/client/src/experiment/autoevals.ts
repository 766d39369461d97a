import type { Evaluation, Evaluator, ExperimentMetadata } from "./types.js";

/** What an autoevals scorer returns. */
interface AutoevalsScore {
  name: string;
  score?: number | null;
  metadata?: ExperimentMetadata;
}

/** An autoevals scorer, such as `Factuality` or `Levenshtein`. */
type AutoevalsScorer<P> = (
  args: P & { input: unknown; output: unknown; expected: unknown },
) => AutoevalsScore | Promise<AutoevalsScore>;

/**
 * Turns an autoevals scorer into an {@link Evaluator}. The scorer gets `params` plus the item's
 * `input`, the task's `output` and the item's `expectedOutput` as `expected`; a missing score counts as 0.
 * @example
 * ```ts
 * import { Factuality } from "autoevals";
 * const factuality = createEvaluatorFromAutoevals(Factuality, { model: "gpt-4o" });
 * ```
 */
export function createEvaluatorFromAutoevals<P extends object = Record<never, never>>(
  scorer: AutoevalsScorer<P>,
  params?: P,
): Evaluator {
  return async ({ input, output, expectedOutput }): Promise<Evaluation> => {
    const score = await scorer({ ...(params as P), input, output, expected: expectedOutput });
    return { name: score.name, value: score.score ?? 0, metadata: score.metadata };
  };
}
