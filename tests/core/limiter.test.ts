import { Limiter } from "@svc/core";
import { describe, expect, it } from "vitest";

/** A task that runs until released, logging `start:<name>` and `end:<name>`; `started` resolves when it starts. */
function gate(log: string[], name: string) {
  let release = () => {};
  let start = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started = new Promise<void>((resolve) => {
    start = resolve;
  });
  return {
    task: async () => {
      log.push(`start:${name}`);
      start();
      await done;
      log.push(`end:${name}`);
      return name;
    },
    started,
    release: () => release(),
  };
}

const startsIn = (log: string[]) => log.filter((e) => e.startsWith("start:")).map((e) => e.slice(6));

describe("Limiter", () => {
  it("runs at most the limit at once and starts the others in order", async () => {
    const log: string[] = [];
    const limiter = new Limiter(2);
    const gates = ["a", "b", "c", "d"].map((n) => gate(log, n));
    const results = gates.map((g) => limiter.run(g.task));
    expect(startsIn(log)).toEqual(["a", "b"]);

    gates[1]?.release();
    await gates[2]?.started;
    expect(startsIn(log)).toEqual(["a", "b", "c"]);
    for (const g of gates) g.release();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
    // d waited for a slot: it started only once two of the others had ended.
    expect(log.indexOf("start:d")).toBeGreaterThan(log.indexOf("end:a"));
  });

  it("starts waiting tasks when a raised limit is woken, and holds new ones at a lowered limit", async () => {
    const log: string[] = [];
    let max = 1;
    const limiter = new Limiter(() => max);
    const gates = ["a", "b", "c", "d"].map((n) => gate(log, n));
    const results = gates.slice(0, 3).map((g) => limiter.run(g.task));
    expect(startsIn(log)).toEqual(["a"]);

    max = 3;
    limiter.wake();
    await Promise.all([gates[1]?.started, gates[2]?.started]);
    expect(startsIn(log)).toEqual(["a", "b", "c"]);

    max = 1;
    const last = limiter.run(gates[3]!.task);
    gates[0]?.release();
    gates[1]?.release();
    await results[1];
    for (const g of gates) g.release();
    expect(await Promise.all([...results, last])).toEqual(["a", "b", "c", "d"]);
    // At the lowered limit of 1, d started only once a, b and c had all ended.
    const dStart = log.indexOf("start:d");
    for (const name of ["a", "b", "c"]) expect(dStart).toBeGreaterThan(log.indexOf(`end:${name}`));
  });

  it("frees the slot of a task that throws", async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run(async () => "next")).toBe("next");
  });
});
