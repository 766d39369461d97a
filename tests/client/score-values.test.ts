import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { type SentScore, scoreRequests, scoreSetup, sentScores } from "../support/scores.ts";

describe("score values the serializer writes", () => {
  it("writes an Error, a Map, a Set and a BigInt in metadata as tracing does, and sends the score", async () => {
    const { server, svc } = await scoreSetup();
    const cause = new TypeError("inner");

    svc.score.create({
      name: "rich",
      value: 1,
      traceId: "t-1",
      metadata: { error: new Error("outer", { cause }), map: new Map([["k", 1]]), set: new Set(["a"]), big: 7n },
    });
    await svc.flush();

    const [score] = sentScores(server);
    expect(score?.metadata).toEqual({
      error: {
        name: "Error",
        message: "outer",
        stack: expect.any(String),
        cause: expect.objectContaining({ name: "TypeError", message: "inner" }),
      },
      map: { k: 1 },
      set: ["a"],
      big: "7",
    });
  });

  it("costs a metadata value whose getter throws only that value", async () => {
    captureLogs();
    const { server, svc } = await scoreSetup();
    const metadata = Object.defineProperty({ kept: true }, "broken", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });

    svc.score.create({ name: "partial", value: 1, traceId: "t-1", metadata });
    await svc.flush();

    expect(sentScores(server)[0]?.metadata).toEqual({ kept: true, broken: "<failed to serialize>" });
  });

  it("sends a text field given another kind of value as its text, so the batch is not refused", async () => {
    const { server, svc } = await scoreSetup();

    svc.score.create({ name: "ids", value: 1, traceId: 42 as never, comment: { note: "x" } as never });
    await svc.flush();

    expect(sentScores(server)[0]).toMatchObject({ traceId: "42", comment: '{"note":"x"}' });
  });

  it("drops a score whose value is a BigInt, with an error line, and sends the others", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup();

    svc.score.create({ name: "big", value: 5n as never, traceId: "t" });
    svc.score.create({ name: "fine", value: 5, traceId: "t" });
    await svc.flush();

    expect(sentScores(server).map((s) => s.name)).toEqual(["fine"]);
    expect(logs).toContainEqual({
      level: "error",
      message: '[Svc SDK] ScoreManager: score dropped: value must be a finite number or a string (name="big")',
    });
  });
});

describe("score request size", () => {
  it("splits a batch whose encoded body, multi-byte text included, would exceed scoreMaxRequestBytes", async () => {
    const { server, svc } = await scoreSetup(undefined, { scoreMaxRequestBytes: 4096, flushAt: 1000 });
    // 300 UTF-16 code units, 1200 bytes in UTF-8 (four-byte characters count two units each): the estimate is low.
    const comment = "\u{1F600}".repeat(150);

    for (let i = 0; i < 20; i++) svc.score.create({ name: `s${i}`, value: i, traceId: "t", comment });
    await svc.flush();

    expect(sentScores(server)).toHaveLength(20);
    for (const request of scoreRequests(server)) expect(request.rawBody.byteLength).toBeLessThanOrEqual(4096);
  });

  it("halves a batch refused with 413 and drops, counted, a single score still refused", async () => {
    const logs = captureLogs();
    const { server, svc } = await scoreSetup((req) => {
      const scores = req.json as SentScore[];
      const huge = scores.some((s) => s.name === "huge");
      return huge ? { status: 413, text: "too large" } : { status: 200, json: {} };
    });

    for (let i = 0; i < 7; i++) svc.score.create({ name: `s${i}`, value: i, traceId: "t" });
    svc.score.create({ name: "huge", value: 1, traceId: "t" });
    await svc.flush();

    expect(scoreRequests(server).map((r) => (r.json as SentScore[]).length)).toEqual([8, 4, 4, 2, 2, 1, 1]);
    expect(svc.health().score.dropped.tooLarge).toBe(1);
    expect(svc.health().score.sent).toBe(7);
    expect(logs.some((l) => l.level === "error" && /score "huge" does not fit in one request/.test(l.message))).toBe(
      true,
    );
  });
});

describe("partial rejections (HTTP 207)", () => {
  it("logs the first three lines in full, in the interface's form, then counts the rejected scores", async () => {
    const logs = captureLogs();
    const { svc } = await scoreSetup(() => ({
      status: 207,
      json: { accepted: 0, rejected: 1, errors: [{ index: 0, message: "unknown config" }] },
    }));

    for (let i = 0; i < 10; i++) {
      svc.score.create({ name: `r${i}`, value: i, traceId: "t" });
      await svc.flush();
    }
    await svc.shutdown();

    const lines = logs.filter((l) => l.level === "error").map((l) => l.message);
    const full = lines.filter((m) => m.startsWith("[Svc SDK] Svc rejected 1 of 1 scores in batch: "));
    expect(full).toHaveLength(3);
    expect(full[0]).toBe('[Svc SDK] Svc rejected 1 of 1 scores in batch: [{"index":0,"message":"unknown config"}]');
    expect(lines.slice(3).join("\n")).toMatch(
      /scores rejected by the server: 7 more scores since the last message \(10 in total\)/,
    );
    expect(svc.health().score.dropped.rejected).toBe(10);
  });
});
