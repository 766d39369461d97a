import type { Evaluation, SvcClient } from "@svc/client";
import { mapLimit } from "@svc/core";
import { SvcOtelSpanAttributes as A } from "@svc/tracing";
import { describe, expect, it } from "vitest";
import { rootSpans, sentScores, setup, useExperimentTracing } from "../support/experiment.ts";
import { attributesOf } from "../support/otel.ts";

useExperimentTracing();

/** Runs one local item through the experiment runner of a client pointed at a recording server. */
async function runOne(evaluators: ((params: { output: unknown }) => unknown)[]) {
  const { server, svc } = await setup();
  const result = await svc.experiment.run({
    name: "core",
    data: [{ input: "q" }],
    task: () => "a",
    evaluators: evaluators as never,
  });
  return { server, item: result.itemResults[0] };
}

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

describe("item evaluators", () => {
  it("keeps the evaluations of the others when one evaluator throws", async () => {
    const good = () => ({ name: "a", value: 1 });
    function broken(): Evaluation {
      throw new Error("judge down");
    }
    const many = async () => [
      { name: "b", value: "yes" },
      { name: "c", value: true },
    ];

    const { item } = await runOne([good, broken, many]);

    expect(item?.evaluations.map((e) => e.name)).toEqual(["a", "b", "c"]);
    expect(item?.evaluationFailures).toEqual([{ evaluator: "evaluator broken", message: "judge down" }]);
  });

  it("records an evaluation without a name or with a non-finite value as a failure", async () => {
    const { item } = await runOne([
      () => ({ name: "", value: 1 }),
      () => [{ name: "nan", value: Number.NaN }],
      () => null,
    ]);

    expect(item?.evaluations).toEqual([]);
    expect(item?.evaluationFailures.map((f) => f.message)).toEqual([
      "returned an invalid evaluation: name must be a non-empty string",
      'returned an invalid evaluation: value must be a finite number, a string or a boolean (name="nan")',
      "returned an invalid evaluation: expected an object, got null",
    ]);
  });
});

describe("evaluation scores", () => {
  it("sends a boolean evaluation as 1 or 0 with data type BOOLEAN", async () => {
    const { server } = await runOne([
      () => ({ name: "yes", value: true }),
      () => ({ name: "no", value: false, comment: "no" }),
    ]);

    const scores = sentScores(server);
    const yes = scores.find((s) => s.name === "yes");
    expect(yes).toMatchObject({ value: 1, dataType: "BOOLEAN" });
    expect(yes).not.toHaveProperty("comment");
    expect(scores.find((s) => s.name === "no")).toMatchObject({ value: 0, dataType: "BOOLEAN", comment: "no" });
  });

  it("derives the item id of local data from the SHA-256 of its input, other values hashed as their JSON", async () => {
    const { server, svc } = await setup();

    await svc.experiment.run({
      name: "ids",
      data: [{ input: "hello" }, { input: { q: 1 } }, { input: '{"q":1}' }] as { input: unknown }[],
      task: () => "a",
    });

    const ids = rootSpans(server).map((s) => attributesOf(s)[A.EXPERIMENT_ITEM_ID]);
    expect(ids).toHaveLength(3);
    // sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
    expect(ids).toContain("2cf24dba5fb0a30e");
    expect(new Set(ids).size).toBe(2);
  });

  it("hashes the input of a local item whose id is not a string, as the gate and the suites do", async () => {
    const { server, svc } = await setup();

    // Plain JavaScript can pass any id; only a string is taken as the item's id.
    await svc.experiment.run({
      name: "ids",
      data: [{ id: 7, input: "hello" }] as unknown as { input: unknown }[],
      task: () => "a",
    });

    // sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
    expect(rootSpans(server).map((s) => attributesOf(s)[A.EXPERIMENT_ITEM_ID])).toEqual(["2cf24dba5fb0a30e"]);
  });
});

describe("the result's format()", () => {
  const capitals: Record<string, string> = { France: "Paris", Japan: "Kyoto" };
  const exact = ({ output, expectedOutput }: { output: unknown; expectedOutput?: unknown }) => ({
    name: "exact",
    value: output === expectedOutput ? 1 : 0,
  });

  async function capitalsRun(svc: SvcClient) {
    return svc.experiment.run({
      name: "capitals",
      runName: "capitals - 2026-01-01T00:00:00.000Z",
      data: [
        { input: "France", expectedOutput: "Paris" },
        { input: "Japan", expectedOutput: "Tokyo" },
        { input: "Peru", expectedOutput: "Lima" },
      ],
      maxConcurrency: 1,
      task: ({ input }) => {
        const capital = capitals[String(input)];
        if (capital === undefined) throw new Error("no capital found");
        return capital;
      },
      evaluators: [exact],
      runEvaluators: [() => ({ name: "accuracy", value: 1 / 3, comment: "1 of 3" })],
    });
  }

  it("renders items, averages, failures, run evaluations and the link", async () => {
    const { svc } = await setup();

    const result = await capitalsRun(svc);

    expect(result.experimentUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/project\/proj-1\//);
    expect(result.format()).toBe(
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
        `Experiment: ${result.experimentUrl}`,
      ].join("\n"),
    );
  });

  it("averages the finite numeric values only: NaN and Infinity are left out of the mean and its count", async () => {
    const { svc } = await setup();
    const values = [1, Number.NaN, 0, Number.POSITIVE_INFINITY];

    const result = await svc.experiment.run({
      name: "averages",
      data: values.map((_, i) => ({ input: i })),
      maxConcurrency: 1,
      task: ({ input }) => input,
      evaluators: [({ input }) => ({ name: "v", value: values[Number(input)] as number })],
    });

    expect(result.format()).toContain("Item evaluation averages\n  v: 0.5 (2 values)");
  });

  it("names a failed dataset item by its id and a short preview of its input, and its evaluator failures too", async () => {
    const { svc } = await setup();
    const longInput = `country-14 ${"with a long question ".repeat(3)}`;
    function judge({ output }: { output: unknown }): Evaluation {
      if (output === "Rome") throw new Error("judge crashed");
      return { name: "judged", value: 1 };
    }

    const result = await svc.experiment.run({
      name: "countries",
      data: [
        { id: "ds-item-2", input: "country-3" },
        { id: "ds-item-7", input: longInput },
      ],
      maxRetries: 1,
      itemTimeoutMs: 200,
      task: ({ input }) => (input === "country-3" ? "Rome" : new Promise<string>(() => {})),
      evaluators: [judge],
    });
    const text = result.format();

    expect(text).toContain(
      'Failures\n  item "ds-item-7" (input "country-14 with a long questi…"): timed out after 200 ms (2 attempts)',
    );
    expect(text).toContain(
      'evaluator judge failed on 1 of 1 item; first, item "ds-item-2" (input "country-3"): judge crashed',
    );
  });

  it("leaves the item table out when includeItemResults is false", async () => {
    const { svc } = await setup();

    const text = (await capitalsRun(svc)).format({ includeItemResults: false });

    expect(text).not.toContain("France");
    expect(text).toContain("Experiment: http://127.0.0.1:");
  });

  it("cuts long values in the table to one line of 40 characters with an ellipsis", async () => {
    const { svc } = await setup();

    const result = await svc.experiment.run({
      name: "excerpts",
      data: [{ input: "x".repeat(50) }],
      task: () => ({ text: "a\n  b" }),
    });

    const row = result.format().split("\n")[4];
    expect(row).toContain(`${"x".repeat(39)}…`);
    expect(row).toContain('{"text":"a\\n b"}');
  });
});
