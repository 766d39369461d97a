import { ExperimentManager, type ExperimentProgress, type ProgressStream, SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { answer, capitals, setup, useExperimentTracing } from "../support/experiment.ts";
import { captureLogs } from "../support/logs.ts";

useExperimentTracing();

/** A stream that says it is a terminal (or not) and keeps what is written to it. */
function fakeStream(isTTY: boolean, columns = 200): ProgressStream & { writes: string[] } {
  const writes: string[] = [];
  return { isTTY, columns, writes, write: (text: string) => writes.push(text) };
}

/** An experiment runner on the parts of a client pointed at a recording server, drawing on `stream`. */
async function runnerWith(stream: ProgressStream): Promise<ExperimentManager> {
  const { svc } = await setup();
  return new ExperimentManager({
    score: svc.score,
    api: svc.api,
    getExperimentUrl: (id) => svc.getExperimentUrl(id),
    progressStream: stream,
  });
}

const ERASE_TO_END = "\u001b[K";
const items = (count: number) => Array.from({ length: count }, (_, i) => ({ input: i }));

describe("the progress line", () => {
  it("is drawn in place on a terminal, once at the start and as items end, and ended with a newline", async () => {
    const stream = fakeStream(true);
    const runner = await runnerWith(stream);

    await runner.run({ name: "progress", runName: "r", data: items(5), task: ({ input }) => input });

    const lines = stream.writes.slice(0, -1);
    expect(stream.writes.at(-1)).toBe("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line.startsWith("\r")).toBe(true);
      expect(line.endsWith(ERASE_TO_END)).toBe(true);
      expect(line.slice(1, -ERASE_TO_END.length)).not.toMatch(/[\n\r]/);
    }
    expect(lines[0]).toContain('experiment "r" [....................] 0/5');
    expect(lines.at(-1)).toContain(
      'experiment "r" [####################] 5/5  running 0  retries 0  ok 5  failed 0  timeout 0  skipped 0',
    );
  });

  it("is not drawn on a stream that is not a terminal", async () => {
    const stream = fakeStream(false);
    const runner = await runnerWith(stream);

    await runner.run({ name: "progress", data: items(3), task: ({ input }) => input });

    expect(stream.writes).toEqual([]);
  });

  it("is not drawn with showProgress: false, even on a terminal", async () => {
    const stream = fakeStream(true);
    const runner = await runnerWith(stream);

    await runner.run({ name: "progress", data: items(3), task: ({ input }) => input, showProgress: false });

    expect(stream.writes).toEqual([]);
  });

  it("is cut to one column less than the terminal's width", async () => {
    const stream = fakeStream(true, 40);
    const runner = await runnerWith(stream);

    await runner.run({ name: "progress", runName: "a rather long run name", data: items(2), task: () => 1 });

    for (const line of stream.writes.slice(0, -1)) {
      const text = line.replace("\r", "").replace("\x1b[K", "");
      expect(text.length).toBe(39);
      expect(text.endsWith("…")).toBe(true);
    }
  });

  it("shows the bar, the items done, running and retried, the counts of each status and the elapsed seconds", async () => {
    // Only the clock is fake, so the elapsed time is what the first task moves it by and nothing else.
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const stream = fakeStream(true);
    const runner = await runnerWith(stream);

    await runner.run({
      name: "progress",
      runName: "r",
      data: [{ input: "ok" }, { input: "flaky" }, { input: "fails" }, { input: "hangs" }],
      maxConcurrency: 1,
      maxRetries: 1,
      itemTimeoutMs: 300,
      task: ({ input }, { attempt }) => {
        if (input === "ok") vi.setSystemTime(Date.now() + 12_345);
        if (input === "fails" || (input === "flaky" && attempt === 1)) throw new Error("overloaded");
        if (input === "hangs") return new Promise<string>(() => {});
        return "answer";
      },
    });

    const lines = stream.writes.map((line) => line.slice(1, -ERASE_TO_END.length));
    // One item of four done: 5 of the bar's 20 cells.
    expect(lines).toContain(
      'experiment "r" [#####...............] 1/4  running 0  retries 0  ok 1  failed 0  timeout 0  skipped 0  12.3 s',
    );
    expect(lines.at(-2)).toBe(
      'experiment "r" [####################] 4/4  running 0  retries 3  ok 2  failed 1  timeout 1  skipped 0  12.3 s',
    );
  });

  it("shows an item still running and the retries under way when another item ends", async () => {
    const stream = fakeStream(true);
    const runner = await runnerWith(stream);
    const seen: ExperimentProgress[] = [];
    let releaseSlow: (value: string) => void = () => undefined;

    await runner.run({
      name: "progress",
      runName: "r",
      data: [{ input: "slow" }, { input: "flaky" }],
      maxRetries: 1,
      task: ({ input }, { attempt }) => {
        if (input === "slow") return new Promise<string>((resolve) => (releaseSlow = resolve));
        if (attempt === 1) throw new Error("overloaded");
        // Past the redraw pause and the once-a-second tick, so the line with one item running is drawn whatever the
        // retry's backoff was.
        setTimeout(() => releaseSlow("done"), 1_100);
        return "answer";
      },
      onProgress: (p) => seen.push(p),
    });

    expect(seen.map(({ done, running, retries }) => ({ done, running, retries }))).toEqual([
      { done: 1, running: 1, retries: 1 },
      { done: 2, running: 0, retries: 1 },
    ]);
    expect(stream.writes.some((line) => line.includes("1/2  running 1  retries 1  ok 1"))).toBe(true);
  });
});

describe("onProgress", () => {
  it("is called after each item with the counts so far and the elapsed time", async () => {
    const { svc } = await setup();
    const seen: ExperimentProgress[] = [];

    await svc.experiment.run({
      name: "progress",
      data: [{ input: 1 }, { input: 2 }, {}],
      maxConcurrency: 1,
      task: ({ input }) => {
        if (input === 2) throw new Error("no");
        return input;
      },
      onProgress: (p) => seen.push(p),
    });

    expect(seen.map(({ elapsedMs, ...counts }) => counts)).toEqual([
      { total: 3, done: 1, ok: 1, failed: 0, timedOut: 0, skipped: 0, running: 0, retries: 0 },
      { total: 3, done: 2, ok: 1, failed: 1, timedOut: 0, skipped: 0, running: 0, retries: 0 },
      { total: 3, done: 3, ok: 1, failed: 2, timedOut: 0, skipped: 0, running: 0, retries: 0 },
    ]);
    expect(seen.every((p, i) => p.elapsedMs >= (seen[i - 1]?.elapsedMs ?? 0))).toBe(true);
  });

  it("does not stop the run when it throws, and logs the first throw, then a count of the others", async () => {
    const { svc } = await setup();
    const logs = captureLogs();

    const result = await svc.experiment.run({
      name: "progress",
      data: items(4),
      task: ({ input }) => input,
      onProgress: () => {
        throw new Error("display gone");
      },
    });

    expect(result.itemResults.map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
    const warnings = logs.filter((l) => l.level === "warn" && l.message.includes("onProgress threw"));
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining("onProgress threw; the run goes on: display gone"),
      expect.stringContaining("onProgress threw; the run goes on: happened 3 more time(s)"),
    ]);
  });
});

describe("run options", () => {
  it("warns about an invalid itemTimeoutMs or maxRetries, names the value used, and runs with it", async () => {
    const { svc } = await setup();
    const logs = captureLogs();
    let calls = 0;

    const result = await svc.experiment.run({
      name: "options",
      data: [capitals[0]!],
      task: () => {
        calls++;
        throw new Error("down");
      },
      itemTimeoutMs: -5,
      maxRetries: 11,
    });

    expect(result.itemResults[0]).toMatchObject({ status: "failed", attempts: 1 });
    expect(calls).toBe(1);
    const warnings = logs.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings).toContainEqual(
      expect.stringContaining("ExperimentManager.run: option itemTimeoutMs=-5 is not a number > 0; using none"),
    );
    expect(warnings).toContainEqual(
      expect.stringContaining("option maxRetries=11 is not a whole number >= 0 <= 10; using 0 (default)"),
    );
  });

  it("names the closest option for a misspelt one", async () => {
    const { svc } = await setup();
    const logs = captureLogs();

    await svc.experiment.run({ name: "options", data: capitals, task: answer, itemTimeout: 500 } as never);

    expect(logs.map((l) => l.message)).toContainEqual(
      expect.stringContaining(
        'ExperimentManager.run: unknown option "itemTimeout" is ignored; did you mean "itemTimeoutMs"?',
      ),
    );
  });

  it("warns once per run that items lose their scores when the client samples traces", async () => {
    const { server } = await setup();
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk", sampleRate: 0.5 });
    const logs = captureLogs();

    await svc.experiment.run({ name: "sampled", data: capitals, task: answer });

    const warnings = logs.filter((l) => l.level === "warn" && l.message.includes("sampleRate is 0.5"));
    expect(warnings).toHaveLength(1);
  });
});
