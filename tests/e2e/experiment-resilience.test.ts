import type { Evaluator, ExperimentProgress, SvcAPI } from "@svc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";

// Runs that survive what real evaluation runs meet: tasks that hang, fail and recover, an abort, evaluators that
// throw; checked in the result and in what the dev server received.

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

const FIELDS = "core,basic,metadata";

/** Every observation of the trace, as the server lists them. */
async function observationsOf(traceId: string | undefined): Promise<SvcAPI.ObservationV2[]> {
  if (traceId === undefined) throw new Error("the item has no trace");
  return (await e2e.svc.api.observations.getMany({ traceId, fields: FIELDS, limit: 1000 })).data;
}

/** Root spans of experiment items the server holds for these traces, paging through every one. */
async function rootSpansOf(traceIds: Set<string>): Promise<SvcAPI.ObservationV2[]> {
  const found: SvcAPI.ObservationV2[] = [];
  let cursor: string | undefined;
  do {
    const page = await e2e.svc.api.observations.getMany({
      name: "experiment-item-run",
      fields: FIELDS,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    found.push(...page.data.filter((o) => o.traceId !== null && traceIds.has(o.traceId)));
    cursor = page.meta.cursor ?? undefined;
  } while (cursor);
  return found;
}

/** Scores the server holds for these traces. */
async function scoresOf(traceIds: string[]): Promise<{ name: string; traceId: string | null }[]> {
  const wanted = new Set(traceIds);
  return [...e2e.server.store.scores.values()].filter((s) => s.traceId !== null && wanted.has(s.traceId));
}

const never = () => new Promise<never>(() => {});

describe("a task that hangs", () => {
  it("times the item out after itemTimeoutMs, gives its place to the next item and records the time-out", async () => {
    const result = await e2e.svc.experiment.run({
      name: "hangs",
      data: [{ input: "a" }, { input: "hang" }, { input: "b" }],
      maxConcurrency: 1,
      itemTimeoutMs: 300,
      task: ({ input }) => (input === "hang" ? never() : `done ${input}`),
      evaluators: [() => ({ name: "seen", value: 1 })],
    });

    expect(result.itemResults.map((r) => [r.status, r.attempts, r.output, r.error])).toEqual([
      ["ok", 1, "done a", undefined],
      ["timeout", 1, undefined, "timed out after 300 ms"],
      ["ok", 1, "done b", undefined],
    ]);
    const [root] = await observationsOf(result.itemResults[1]?.traceId);
    expect(root).toMatchObject({
      name: "experiment-item-run",
      level: "ERROR",
      statusMessage: "timed out after 300 ms",
    });
    const scored = await scoresOf(result.itemResults.flatMap((r) => (r.traceId ? [r.traceId] : [])));
    expect(scored.map((s) => s.traceId).sort()).toEqual(
      [result.itemResults[0]?.traceId, result.itemResults[2]?.traceId].sort(),
    );
    expect(result.format()).toContain("(3 items: 2 ok, 1 timed out)");
  });
});

describe("a task that fails twice, then succeeds", () => {
  it("retries with backoff and shows each attempt as a child span of the item's root", async () => {
    const calls: number[] = [];
    const result = await e2e.svc.experiment.run({
      name: "flaky",
      data: [{ input: "flaky" }],
      maxRetries: 2,
      task: (_item, { attempt }) => {
        calls.push(attempt);
        if (attempt < 3) throw new Error(`model overloaded (attempt ${attempt})`);
        return "answer";
      },
      evaluators: [({ output }) => ({ name: "answered", value: output === "answer" })],
    });

    const [item] = result.itemResults;
    expect(calls).toEqual([1, 2, 3]);
    expect(item).toMatchObject({ status: "ok", attempts: 3, output: "answer", evaluations: [{ name: "answered" }] });
    const observations = await observationsOf(item?.traceId);
    const root = observations.find((o) => o.name === "experiment-item-run");
    const attempts = observations
      .filter((o) => o.name === "experiment-item-attempt")
      .sort(
        (a, b) =>
          Number((a.metadata as { attempt: number }).attempt) - Number((b.metadata as { attempt: number }).attempt),
      );
    expect(attempts.map((a) => [a.parentObservationId, a.level, a.statusMessage ?? null])).toEqual([
      [root?.id, "ERROR", "model overloaded (attempt 1)"],
      [root?.id, "ERROR", "model overloaded (attempt 2)"],
      [root?.id, "DEFAULT", null],
    ]);
    expect(root).toMatchObject({ level: "DEFAULT" });
    expect((await scoresOf([item?.traceId ?? ""])).map((s) => s.name)).toEqual(["answered"]);
  });

  it("fails the item with the last error once the retries are used up", async () => {
    const result = await e2e.svc.experiment.run({
      name: "broken",
      data: [{ input: "x" }],
      maxRetries: 1,
      task: (_item, { attempt }) => {
        throw new Error(`still down (attempt ${attempt})`);
      },
    });

    expect(result.itemResults[0]).toMatchObject({ status: "failed", attempts: 2, error: "still down (attempt 2)" });
    expect(result.format()).toContain('item 1 (input "x"): task failed: still down (attempt 2) (2 attempts)');
  });
});

describe("maxConcurrency under retries and time-outs", () => {
  it("never has more task calls in flight than the limit while items retry and time out", async () => {
    let inFlight = 0;
    let peak = 0;
    const result = await e2e.svc.experiment.run({
      name: "bounded",
      data: Array.from({ length: 9 }, (_, i) => ({ input: i })),
      maxConcurrency: 3,
      maxRetries: 1,
      itemTimeoutMs: 200,
      task: async ({ input }, { attempt, signal }) => {
        peak = Math.max(peak, ++inFlight);
        try {
          const kind = Number(input) % 3;
          // 0: hangs on its first attempt (until its signal aborts); 1: throws once; 2: answers at once.
          if (kind === 0 && attempt === 1)
            await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (kind === 1 && attempt === 1) throw new Error("flaky");
          return input;
        } finally {
          inFlight--;
        }
      },
    });

    expect(result.itemResults.map((r) => [r.status, r.attempts])).toEqual(
      Array.from({ length: 9 }, (_, i) => ["ok", i % 3 === 2 ? 1 : 2]),
    );
    expect(peak).toBe(3);
  });
});

describe("an abort halfway through 200 items", () => {
  it("skips the items not started, abandons the running ones, and has flushed what was traced when run resolves", async () => {
    const controller = new AbortController();
    const sawAbort: number[] = [];
    let hanging = 0;
    let inFlight = 0;
    let peak = 0;
    const progress: ExperimentProgress[] = [];
    const result = await e2e.svc.experiment.run({
      name: "aborted",
      data: Array.from({ length: 200 }, (_, i) => ({ input: i })),
      maxConcurrency: 10,
      signal: controller.signal,
      onProgress: (p) => progress.push(p),
      // The first 100 items answer at once; the others wait for their signal, as a model call given it would. Once
      // ten of them run (the first 100 are then done), the run is aborted: halfway, with every place taken.
      task: async ({ input }, { signal }) => {
        peak = Math.max(peak, ++inFlight);
        try {
          if (Number(input) < 100) return input;
          const waiting = new Promise((_, reject) =>
            signal.addEventListener("abort", () => {
              sawAbort.push(Number(input));
              reject(signal.reason);
            }),
          );
          if (++hanging === 10) controller.abort(new Error("stopped by the user"));
          return await waiting;
        } finally {
          inFlight--;
        }
      },
      evaluators: [() => ({ name: "reached", value: 1 })],
      runEvaluators: [() => ({ name: "never", value: 1 })],
    });

    const statuses = result.itemResults.map((r) => [
      r.status,
      r.attempts,
      r.traceId === undefined ? "no trace" : "trace",
    ]);
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(["ok", 1, "trace"]));
    expect(statuses.slice(100, 110)).toEqual(Array(10).fill(["skipped", 1, "trace"]));
    expect(statuses.slice(110)).toEqual(Array(90).fill(["skipped", 0, "no trace"]));
    expect(result.itemResults[105]?.error).toBe("abandoned: the run was aborted");
    expect(sawAbort.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
    expect(peak).toBe(10);
    expect(result.runEvaluations).toEqual([]);
    expect(progress.at(-1)).toMatchObject({ total: 200, done: 200, ok: 100, skipped: 100, failed: 0, timedOut: 0 });

    // No flush here: run() has flushed the spans and scores of every item it started.
    const traced = result.itemResults.flatMap((r) => (r.traceId ? [r.traceId] : []));
    const roots = await rootSpansOf(new Set(traced));
    expect(roots).toHaveLength(110);
    expect(
      roots
        .filter((o) => o.level === "WARNING")
        .map((o) => o.traceId)
        .sort(),
    ).toEqual(traced.slice(100).sort());
    const scores = await scoresOf(traced);
    expect(scores.map((s) => s.traceId).sort()).toEqual(traced.slice(0, 100).sort());
    expect(result.format()).toContain("(200 items: 100 ok, 100 skipped)");
  });

  it("runs nothing when the signal has already aborted", async () => {
    let calls = 0;
    const result = await e2e.svc.experiment.run({
      name: "never-started",
      data: [{ input: 1 }, { input: 2 }],
      signal: AbortSignal.abort(),
      task: () => ++calls,
    });

    expect(calls).toBe(0);
    expect(result.itemResults.map((r) => [r.status, r.traceId])).toEqual([
      ["skipped", undefined],
      ["skipped", undefined],
    ]);
  });
});

describe("evaluators that throw", () => {
  it("report each failing evaluator per item, keep the other evaluations, and never fail the run", async () => {
    const throwsAtOnce: Evaluator = function judge() {
      throw new Error("judge crashed");
    };
    const rejects: Evaluator = async function grader() {
      throw new Error("grader unavailable");
    };
    const invalid = (() => ({ name: "", value: 1 })) as Evaluator;
    const hangs: Evaluator = function slowJudge() {
      return never();
    };
    const result = await e2e.svc.experiment.run({
      name: "judged",
      data: [{ input: "a" }, { input: "b" }],
      itemTimeoutMs: 300,
      task: ({ input }) => String(input).toUpperCase(),
      evaluators: [throwsAtOnce, rejects, invalid, hangs, () => ({ name: "length", value: 1 })],
      runEvaluators: [
        () => {
          throw new Error("run judge crashed");
        },
        ({ itemResults }) => ({ name: "items", value: itemResults.length }),
      ],
    });

    for (const item of result.itemResults) {
      expect(item.status).toBe("ok");
      expect(item.evaluations).toEqual([{ name: "length", value: 1 }]);
      expect(item.evaluationFailures).toEqual([
        { evaluator: "evaluator judge", message: "judge crashed" },
        { evaluator: "evaluator grader", message: "grader unavailable" },
        { evaluator: "evaluator invalid", message: "returned an invalid evaluation: name must be a non-empty string" },
        { evaluator: "evaluator slowJudge", message: "did not settle within 300 ms" },
      ]);
    }
    expect(result.runEvaluations).toEqual([{ name: "items", value: 2 }]);
    expect(result.runEvaluationFailures).toEqual([{ evaluator: "evaluator #1", message: "run judge crashed" }]);
    const traceIds = result.itemResults.map((r) => r.traceId ?? "");
    expect((await scoresOf(traceIds)).map((s) => s.name)).toEqual(["length", "length"]);
    const text = result.format();
    expect(text).toContain(
      'Evaluator failures\n  evaluator judge failed on 2 of 2 items; first, item 1 (input "a"): judge crashed',
    );
    expect(text).toContain(
      'evaluator slowJudge failed on 2 of 2 items; first, item 1 (input "a"): did not settle within 300 ms',
    );
  });
});
