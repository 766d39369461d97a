import { configureGlobalLogger, LogLevel, RepeatLog } from "@svc/core";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureLogs } from "../support/logs.ts";

function fakeClock(): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-01-01T00:00:00.000Z"));
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

const KIND = "Widget: item dropped: empty name";

describe("RepeatLog", () => {
  it("logs the first line of a kind at once, with its detail", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();

    repeats.error(KIND, `${KIND} (item 7)`);

    expect(logs).toEqual([{ level: "error", message: "[Svc SDK] Widget: item dropped: empty name (item 7)" }]);
  });

  it("logs nothing more for 99 repeats, then one summary with the count 99 on report()", () => {
    fakeClock();
    const logs = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 100; i++) repeats.error(KIND, `${KIND} (item ${i})`);
    vi.advanceTimersByTime(9_999);
    expect(logs).toHaveLength(1);
    repeats.report();

    expect(logs.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND} (item 0)`,
      `[Svc SDK] ${KIND}: happened 99 more time(s) since the last message`,
    ]);
    expect(logs[1]?.level).toBe("error");
  });

  it("summarises on the first repeat at least ten seconds after the last line, counting that repeat", () => {
    fakeClock();
    const logs = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 100; i++) repeats.warn(KIND, KIND);
    vi.advanceTimersByTime(10_000);
    repeats.warn(KIND, KIND);
    repeats.warn(KIND, KIND);

    expect(logs).toEqual([
      { level: "warn", message: `[Svc SDK] ${KIND}` },
      { level: "warn", message: `[Svc SDK] ${KIND}: happened 100 more time(s) since the last message` },
    ]);
  });

  it("logs the first inFull lines of a kind in full, then counts", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 10; i++) repeats.error(KIND, `${KIND} (item ${i})`, { inFull: 3 });
    repeats.report();

    expect(logs.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND} (item 0)`,
      `[Svc SDK] ${KIND} (item 1)`,
      `[Svc SDK] ${KIND} (item 2)`,
      `[Svc SDK] ${KIND}: happened 7 more time(s) since the last message`,
    ]);
  });

  it("reports on report({ dueOnly: true }) only the kinds whose last line is ten seconds old", () => {
    fakeClock();
    const logs = captureLogs();
    const repeats = new RepeatLog();

    repeats.warn(KIND, KIND);
    repeats.warn(KIND, KIND);
    repeats.report({ dueOnly: true });
    expect(logs).toHaveLength(1);
    vi.advanceTimersByTime(10_000);
    repeats.report({ dueOnly: true });

    expect(logs.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND}`,
      `[Svc SDK] ${KIND}: happened 1 more time(s) since the last message`,
    ]);
  });

  it("logs no summary on report() when nothing repeated since the last line", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();

    repeats.warn(KIND, KIND);
    repeats.report();
    repeats.warn(KIND, KIND);
    repeats.report();
    repeats.report();

    expect(logs.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND}`,
      `[Svc SDK] ${KIND}: happened 1 more time(s) since the last message`,
    ]);
  });

  it("logs a kind in full again after it stayed quiet for ten seconds", () => {
    fakeClock();
    const logs = captureLogs();
    const repeats = new RepeatLog();

    repeats.error(KIND, `${KIND} (item 1)`);
    vi.advanceTimersByTime(60_000);
    repeats.error(KIND, `${KIND} (item 2)`);

    expect(logs.map((l) => l.message)).toEqual([`[Svc SDK] ${KIND} (item 1)`, `[Svc SDK] ${KIND} (item 2)`]);
  });

  it("counts each kind on its own", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 3; i++) repeats.error("A: failed", "A: failed");
    for (let i = 0; i < 5; i++) repeats.warn("B: skipped", "B: skipped");
    repeats.report();

    expect(logs).toEqual([
      { level: "error", message: "[Svc SDK] A: failed" },
      { level: "warn", message: "[Svc SDK] B: skipped" },
      { level: "error", message: "[Svc SDK] A: failed: happened 2 more time(s) since the last message" },
      { level: "warn", message: "[Svc SDK] B: skipped: happened 4 more time(s) since the last message" },
    ]);
  });

  it("tracks at most 1,000 kinds and logs lines of further kinds every time", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 1_000; i++) repeats.warn(`kind ${i}`, `kind ${i}`);
    for (const kind of ["C", "C", "kind 0"]) repeats.warn(kind, `${kind} happened`);
    repeats.report();

    expect(logs.slice(1_000).map((l) => l.message)).toEqual([
      "[Svc SDK] C happened",
      "[Svc SDK] C happened",
      "[Svc SDK] kind 0: happened 1 more time(s) since the last message",
    ]);
  });

  it("keeps the default bound of 1,000 kinds", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();
    const bound = 1_000;

    for (let i = 0; i <= bound; i++) repeats.warn(`kind ${i}`, `kind ${i}`);
    for (let i = 0; i <= bound; i++) repeats.warn(`kind ${i}`, `kind ${i}`);

    // 1,001 first lines, and the kind beyond the bound once more.
    expect(logs).toHaveLength(bound + 2);
    expect(logs.at(-1)?.message).toBe(`[Svc SDK] kind ${bound}`);
  });

  it("makes room for new kinds by forgetting kinds that stayed quiet for ten seconds", () => {
    fakeClock();
    const logs = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 1_000; i++) repeats.warn(`kind ${i}`, `kind ${i}`);
    vi.advanceTimersByTime(10_000);
    repeats.warn("B", "B");
    repeats.warn("B", "B");
    repeats.report();

    expect(logs.slice(999).map((l) => l.message)).toEqual([
      "[Svc SDK] kind 999",
      "[Svc SDK] B",
      "[Svc SDK] B: happened 1 more time(s) since the last message",
    ]);
  });

  it("reports the repeats it held when the global logger is reconfigured, then starts afresh", () => {
    const logs = captureLogs();
    const repeats = new RepeatLog();

    repeats.warn(KIND, KIND);
    repeats.warn(KIND, KIND);
    repeats.warn(KIND, KIND);
    configureGlobalLogger({ level: LogLevel.DEBUG });
    repeats.warn(KIND, KIND);
    repeats.report();

    expect(logs.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND}`,
      `[Svc SDK] ${KIND}: happened 2 more time(s) since the last message`,
      `[Svc SDK] ${KIND}`,
    ]);
  });

  it("logs the held repeats where their first line went when the sink changes, so that the log adds up", () => {
    const before = captureLogs();
    const repeats = new RepeatLog();
    repeats.error(KIND, KIND);
    repeats.error(KIND, KIND);

    const after = captureLogs();
    repeats.report();

    expect(before.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND}`,
      `[Svc SDK] ${KIND}: happened 1 more time(s) since the last message`,
    ]);
    expect(after).toEqual([]);
  });

  it("summarises the repeats of a kind once its interval of 10 s has passed", () => {
    fakeClock();
    const logs = captureLogs();
    const repeats = new RepeatLog();

    repeats.error(KIND, KIND);
    repeats.error(KIND, KIND);
    vi.advanceTimersByTime(10_000);
    repeats.error(KIND, KIND);

    expect(logs.map((l) => l.message)).toEqual([
      `[Svc SDK] ${KIND}`,
      `[Svc SDK] ${KIND}: happened 2 more time(s) since the last message`,
    ]);
  });
});

describe("RepeatLog counts", () => {
  it("counts items rather than lines when a line stands for several, with the total", () => {
    const lines = captureLogs();
    const repeats = new RepeatLog();

    repeats.error("Q: spans dropped", "Q: spans dropped: 3 spans", { count: 3, unit: "spans" });
    repeats.error("Q: spans dropped", "Q: spans dropped: 5 spans", { count: 5, unit: "spans" });
    repeats.report();

    expect(lines.map((l) => l.message)).toEqual([
      "[Svc SDK] Q: spans dropped: 3 spans",
      "[Svc SDK] Q: spans dropped: 5 more spans since the last message (8 in total)",
    ]);
  });

  it("writes the count of repeats once the interval has passed, without another occurrence", async () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const lines = captureLogs();
    const repeats = new RepeatLog();

    for (let i = 0; i < 3; i++) repeats.warn("T: failed", "T: failed once");
    expect(lines).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);

    expect(lines.map((l) => l.message)).toEqual([
      "[Svc SDK] T: failed once",
      "[Svc SDK] T: failed: happened 2 more time(s) since the last message",
    ]);
  });
});
