import { Limiter } from "@svc/core";
import { describe, expect, it } from "vitest";

/** A task that runs until released, recording when it started. */
function gate(started: string[], name: string) {
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    task: async () => {
      started.push(name);
      await done;
      return name;
    },
    release: () => release(),
  };
}

describe("Limiter", () => {
  it("runs at most the limit at once and starts the others in order", async () => {
    const started: string[] = [];
    const limiter = new Limiter(2);
    const gates = ["a", "b", "c", "d"].map((n) => gate(started, n));
    const results = gates.map((g) => limiter.run(g.task));
    await Promise.resolve();
    expect(started).toEqual(["a", "b"]);
    gates[1]?.release();
    await results[1];
    await Promise.resolve();
    expect(started).toEqual(["a", "b", "c"]);
    for (const g of gates) g.release();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
  });

  it("starts waiting tasks when a raised limit is woken, and holds new ones at a lowered limit", async () => {
    const started: string[] = [];
    let max = 1;
    const limiter = new Limiter(() => max);
    const gates = ["a", "b", "c", "d"].map((n) => gate(started, n));
    const results = gates.slice(0, 3).map((g) => limiter.run(g.task));
    await Promise.resolve();
    expect(started).toEqual(["a"]);
    max = 3;
    limiter.wake();
    await Promise.resolve();
    expect(started).toEqual(["a", "b", "c"]);
    max = 1;
    const last = limiter.run(gates[3]!.task);
    gates[0]?.release();
    await results[0];
    await Promise.resolve();
    expect(started).toEqual(["a", "b", "c"]);
    for (const g of gates) g.release();
    expect(await Promise.all([...results, last])).toEqual(["a", "b", "c", "d"]);
  });

  it("frees the slot of a task that throws", async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run(async () => "next")).toBe("next");
  });
});
