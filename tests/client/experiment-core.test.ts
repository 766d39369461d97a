import { mapLimit } from "@svc/core";
import { describe, expect, it } from "vitest";
import { excerpt, formatExperimentResult } from "../../packages/client/src/experiment/format.js";
import { hashInput, runEvaluators, toScoreFields } from "../../packages/client/src/experiment/internal/run-item.js";
import type { Evaluation } from "../../packages/client/src/experiment/types.js";

describe("mapLimit", () => {
  it("never has more than the limit in flight and returns results in input order", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const items = Array.from({ length: 20 }, (_, i) => i);

    const results = await mapLimit(items, 3, async (n) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, (n * 7) % 4));
      inFlight--;
      return n * 2;
    });

    expect(maxInFlight).toBe(3);
    expect(results).toEqual(items.map((n) => n * 2));
  });

  it("resolves an empty list without calling the worker", async () => {
    let calls = 0;
    const results = await mapLimit([], 5, async () => ++calls);
    expect(results).toEqual([]);
    expect(calls).toBe(0);
  });
});

describe("runEvaluators", () => {
  it("keeps the evaluations of the others when one evaluator throws", async () => {
    const good = () => ({ name: "a", value: 1 });
    function broken(): Evaluation {
      throw new Error("judge down");
    }
    const many = async () => [
      { name: "b", value: "yes" },
      { name: "c", value: true },
    ];

    const outcome = await runEvaluators([good, broken, many], {});

    expect(outcome.evaluations.map((e) => e.name)).toEqual(["a", "b", "c"]);
    expect(outcome.failures).toEqual([{ evaluator: "evaluator broken", message: "judge down" }]);
  });

  it("records an evaluation without a name or with a non-finite value as a failure", async () => {
    const outcome = await runEvaluators(
      [() => ({ name: "", value: 1 }), () => [{ name: "nan", value: Number.NaN }], () => null as unknown as Evaluation],
      {},
    );

    expect(outcome.evaluations).toEqual([]);
    expect(outcome.failures.map((f) => f.message)).toEqual([
      "returned an invalid evaluation: name must be a non-empty string",
      'returned an invalid evaluation: value must be a finite number, a string or a boolean (name="nan")',
      "returned an invalid evaluation: expected an object, got null",
    ]);
  });
});

describe("evaluation scores", () => {
  it("sends a boolean evaluation as 1 or 0 with data type BOOLEAN", () => {
    expect(toScoreFields({ name: "ok", value: true })).toEqual({ name: "ok", value: 1, dataType: "BOOLEAN" });
    expect(toScoreFields({ name: "ok", value: false, comment: "no" })).toEqual({
      name: "ok",
      value: 0,
      dataType: "BOOLEAN",
      comment: "no",
    });
  });

  it("derives the item id of local data from the SHA-256 of its input", async () => {
    // sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
    expect(await hashInput("hello")).toBe("2cf24dba5fb0a30e");
    expect(await hashInput({ q: 1 })).toBe(await hashInput('{"q":1}'));
  });
});

describe("formatExperimentResult", () => {
  const base = {
    runName: "capitals - 2026-01-01T00:00:00.000Z",
    runEvaluationFailures: [],
    experimentUrl: "http://svc.test/project/p/experiments/results?baseline=abc",
  };
  const item = (input: string, output: string | undefined, evaluations: Evaluation[], error?: string) => ({
    item: { input },
    status: error ? ("failed" as const) : ("ok" as const),
    attempts: 1,
    input,
    expectedOutput: undefined,
    output,
    evaluations,
    traceId: "t",
    evaluationFailures: [],
    trials: [],
    scores: {},
    ...(error ? { error } : {}),
  });

  it("renders items, averages, failures, run evaluations and the link", () => {
    const text = formatExperimentResult({
      ...base,
      itemResults: [
        item("France", "Paris", [{ name: "exact", value: 1 }]),
        item("Japan", "Kyoto", [{ name: "exact", value: 0 }]),
        item("Peru", undefined, [], "no capital found"),
      ],
      runEvaluations: [{ name: "accuracy", value: 1 / 3, comment: "1 of 3" }],
    });

    expect(text).toBe(
      [
        'Experiment run "capitals - 2026-01-01T00:00:00.000Z" (3 items: 2 ok, 1 failed)',
        "",
        "#  Status  Input   Output                   Evaluations",
        "-  ------  ------  -----------------------  -----------",
        "1  ok      France  Paris                    exact=1",
        "2  ok      Japan   Kyoto                    exact=0",
        "3  failed  Peru    error: no capital found  -",
        "",
        "Item evaluation averages",
        "  exact: 0.5 (2 values)",
        "",
        "Failures",
        '  item 3 (input "Peru"): task failed: no capital found',
        "",
        "Run evaluations",
        "  accuracy=0.333  (1 of 3)",
        "",
        "Experiment: http://svc.test/project/p/experiments/results?baseline=abc",
      ].join("\n"),
    );
  });

  it("names a failed dataset item by its id and a short preview of its input, and its evaluator failures too", () => {
    const timedOut = {
      ...item(`country-14 ${"with a long question ".repeat(3)}`, undefined, []),
      item: { id: "ds-item-7", input: "country-14" },
      status: "timeout" as const,
      attempts: 3,
      error: "timed out after 1000 ms",
    };
    const judged = {
      ...item("country-3", "Rome", []),
      item: { id: "ds-item-2", input: "country-3" },
      evaluationFailures: [{ evaluator: "evaluator judge", message: "judge crashed" }],
    };

    const text = formatExperimentResult({ ...base, itemResults: [judged, timedOut], runEvaluations: [] });

    expect(text).toContain(
      'Failures\n  item "ds-item-7" (input "country-14 with a long questi…"): timed out after 1000 ms (3 attempts)',
    );
    expect(text).toContain(
      'evaluator judge failed on 1 of 1 item; first, item "ds-item-2" (input "country-3"): judge crashed',
    );
  });

  it("leaves the item table out when includeItemResults is false", () => {
    const text = formatExperimentResult(
      { ...base, itemResults: [item("France", "Paris", [])], runEvaluations: [] },
      { includeItemResults: false },
    );
    expect(text).not.toContain("France");
    expect(text).toContain("Experiment: http://svc.test");
  });

  it("cuts long values to one line with an ellipsis", () => {
    expect(excerpt({ text: "a\n  b" })).toBe('{"text":"a\\n b"}');
    expect(excerpt("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
