// The experiment part of the quickstart: a dataset on the server, a run with item and run evaluators.
import type { Evaluator, ExperimentResult, RunEvaluator, SvcClient, TextPromptClient } from "@svc/client";
import { answer } from "./pipeline.ts";

export const DATASET = "quickstart-questions";

const ITEMS = [
  {
    question: "What do traces record?",
    expected: "It records traces of observations and the scores that evaluate them.",
  },
  {
    question: "What do scores attach to?",
    expected: "It records traces of observations and the scores that evaluate them.",
  },
  { question: "Who won the 1930 World Cup?", expected: "Uruguay." },
];

/** Item evaluator: 1 when the output equals the expected output, else 0. */
const exactMatch: Evaluator<unknown, unknown, unknown> = ({ output, expectedOutput }) => ({
  name: "exact_match",
  value: output === expectedOutput ? 1 : 0,
});

/** Run evaluator: the share of items that matched exactly. */
const accuracy: RunEvaluator<unknown, unknown, unknown> = ({ itemResults }) => {
  const matches = itemResults.filter((r) => r.evaluations.some((e) => e.name === "exact_match" && e.value === 1));
  return { name: "accuracy", value: itemResults.length ? matches.length / itemResults.length : 0 };
};

/** Creates the dataset and its items, then runs the experiment on it. */
export async function runExperiment(
  svc: SvcClient,
  prompt: TextPromptClient,
): Promise<ExperimentResult<unknown, unknown, unknown>> {
  await svc.api.datasets.create({ name: DATASET, description: "Questions for the quickstart experiment" });
  for (const item of ITEMS) {
    await svc.dataset.createItem({
      datasetName: DATASET,
      input: { question: item.question },
      expectedOutput: item.expected,
    });
  }
  const dataset = await svc.dataset.get(DATASET);
  return dataset.runExperiment({
    name: "quickstart-experiment",
    runName: "quickstart-run-1",
    description: "Fixed answers against the quickstart questions",
    task: ({ input }) => answer(prompt, (input as { question: string }).question),
    evaluators: [exactMatch],
    runEvaluators: [accuracy],
  });
}
