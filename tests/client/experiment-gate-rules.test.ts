import { type Evaluation, SvcClient } from "@svc/client";
import { setSvcTracerProvider } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { reply, setup, useExperimentTracing } from "../support/experiment.ts";
import { startServer } from "../support/http-server.ts";
import { svcProvider } from "../support/otel.ts";

useExperimentTracing();

/** A baseline run as the experiment routes list it: its run scores and, per item id, its outcome and scores. */
interface Baseline {
  runScores?: Record<string, number>;
  items?: { id: string; failed?: boolean; scores?: Record<string, number> }[];
}

const listed = (scores: Record<string, number> = {}) =>
  Object.entries(scores).map(([name, value]) => ({ name, value }));

/**
 * Runs local items, each with its id and the evaluations given for it, on a client whose server lists `baseline` as
 * the run named "base", and returns the result to compare. `itemsCursor` gives the cursor of each page of items.
 */
async function runAgainst(
  baseline: Baseline,
  items: { id: string; evaluations: Evaluation[] }[],
  itemsCursor: (page: number) => string | undefined = () => undefined,
) {
  let itemPages = 0;
  const server = await startServer((req) => {
    if (req.path === "/api/public/experiments") {
      const run = { id: "base-id", name: "base", datasetId: null, scores: listed(baseline.runScores) };
      return { json: { data: [run], meta: {} } };
    }
    if (req.path === "/api/public/experiment-items") {
      const data = (baseline.items ?? []).map((i) => ({
        experimentItemId: i.id,
        level: i.failed ? "ERROR" : "DEFAULT",
        scores: listed(i.scores),
      }));
      return { json: { data, meta: { cursor: itemsCursor(itemPages++) } } };
    }
    return reply(req);
  });
  onTestFinished(() => server.close());
  setSvcTracerProvider(svcProvider(server).provider);
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test" });
  const byId = new Map(items.map((i) => [i.id, i.evaluations]));
  return svc.experiment.run({
    name: "gate",
    data: items.map(({ id }) => ({ id, input: id })),
    task: ({ input }) => input,
    evaluators: [({ input }) => byId.get(String(input)) ?? []],
  });
}

describe("assertions", () => {
  // Every item failed in the baseline, so the items that pass the assertions now are the ones that flip to pass.
  const items = [
    { id: "a", evaluations: [e("exact_match", 1), e("latency", -3)] },
    { id: "b", evaluations: [e("exact_match", 0.5), e("latency", -3)] },
    { id: "c", evaluations: [e("exact_match", 1), e("latency", -2)] },
    { id: "d", evaluations: [e("exact_match", 1), e("latency", -2.5)] },
    { id: "e", evaluations: [e("exact_match", 1), e("latency", -3), e("helpfulness", 0)] },
    { id: "f", evaluations: [e("latency", -3)] },
  ];
  const failedBaseline = { items: items.map(({ id }) => ({ id, failed: true })) };
  const fixed = async (assertions: string[]) => {
    const result = await runAgainst(failedBaseline, items);
    const gate = await result.compareWithBaseline({ baseline: "base", assertions });
    return gate.flips.map((f) => [f.itemId, f.direction]);
  };

  it("reads item thresholds with >=, <= and negative numbers, spaces or none, and leaves run thresholds to the run", async () => {
    // d sits on the latency bound; f has no exact_match; e's helpfulness is below the run threshold, not an item one.
    expect(await fixed(["exact_match >= 1", "mean(helpfulness) > 0.8", " latency<=-2.5 "])).toEqual([
      ["a", "fixed"],
      ["d", "fixed"],
      ["e", "fixed"],
    ]);
  });

  it("reads item thresholds with >, < and ==", async () => {
    expect(await fixed(["exact_match > 0.5", "latency < -2.5", "exact_match == 1"])).toEqual([
      ["a", "fixed"],
      ["e", "fixed"],
    ]);
  });

  it("rejects with a TypeError naming an assertion it cannot read and the form to use", async () => {
    const result = await runAgainst(failedBaseline, items.slice(0, 1));

    const compared = result.compareWithBaseline({ baseline: "base", assertions: ["exact_match => 1"] });

    await expect(compared).rejects.toThrow(TypeError);
    await expect(compared).rejects.toThrow(
      'assertion "exact_match => 1" cannot be read; write "<score> <op> <number>" or "mean(<score>) <op> <number>"',
    );
  });
});

describe("baseline paging", () => {
  const items = [{ id: "a", evaluations: [e("acc", 1)] }];

  it("rejects naming the listing when the server never stops returning a cursor", async () => {
    const result = await runAgainst({ items: [{ id: "a" }] }, items, (page) => `c${page}`);

    await expect(result.compareWithBaseline({ baseline: "base" })).rejects.toThrow(
      "compareWithBaseline: stopped after 1000 pages of experiment items; the server kept returning a cursor",
    );
  });

  it("rejects when the server returns the same cursor twice", async () => {
    const result = await runAgainst({ items: [{ id: "a" }] }, items, () => "same");

    await expect(result.compareWithBaseline({ baseline: "base" })).rejects.toThrow(
      'compareWithBaseline: the server returned the same cursor twice ("same")',
    );
  });

  it("reads every page the server lists", async () => {
    const result = await runAgainst({ items: [{ id: "a", failed: true }] }, items, (page) =>
      page < 2 ? `c${page}` : undefined,
    );

    // Three pages each list item "a" as failed: the item flips to pass once.
    const gate = await result.compareWithBaseline({ baseline: "base" });
    expect(gate.flips.map((f) => [f.itemId, f.direction])).toEqual([["a", "fixed"]]);
  });
});

describe("trial summaries", () => {
  it("counts booleans as 1 and 0 and leaves out text values", async () => {
    const values: (number | string | boolean)[] = [true, false, "n/a", 1];
    let trial = 0;
    const { svc } = await setup();

    const run = await svc.experiment.run({
      name: "trials",
      data: [{ input: "q" }],
      trials: 4,
      maxConcurrency: 1,
      task: () => "a",
      evaluators: [() => ({ name: "s", value: values[trial++] as number | string | boolean })],
    });

    // Values 1, 0, 1: mean 2/3, population variance 2/9.
    expect(run.itemResults[0]?.scores).toEqual({
      s: { mean: 2 / 3, stdev: Math.sqrt(2 / 9), min: 0, max: 1, count: 3 },
    });
  });
});

describe("score thresholds of the gate", () => {
  const current = (value: number) => [{ id: "i", evaluations: [e("acc", value)] }];

  it("passes a drop equal to maxDrop and fails a larger one", async () => {
    const result = await runAgainst({ items: [{ id: "i", scores: { acc: 0.75 } }] }, current(0.5));

    expect((await result.compareWithBaseline({ baseline: "base", maxDrop: 0.25 })).passed).toBe(true);
    expect((await result.compareWithBaseline({ baseline: "base", maxDrop: 0.2 })).passed).toBe(false);
  });

  it("passes a score the baseline lacks and fails one the current run lacks", async () => {
    const result = await runAgainst({ runScores: { old_run_score: 0.9 } }, current(1));

    const gate = await result.compareWithBaseline({ baseline: "base" });

    expect(gate.scores.map((s) => [s.name, s.kind, s.passed])).toEqual([
      ["acc", "item mean", true],
      ["old_run_score", "run", false],
    ]);
    expect(gate.passed).toBe(false);
  });
});

function e(name: string, value: number): Evaluation {
  return { name, value };
}
