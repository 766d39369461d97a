import { settleWithin } from "@svc/core";
import { describe, expect, it } from "vitest";

describe("settleWithin", () => {
  it("gives the value of a call that returns or resolves in time", async () => {
    expect(await settleWithin(() => 1, { timeoutMs: 1000 })).toEqual({ kind: "value", value: 1 });
    expect(await settleWithin(async () => 2)).toEqual({ kind: "value", value: 2 });
  });

  it("gives the error of a call that throws or rejects, without rejecting itself", async () => {
    const thrown = new Error("at once");
    const rejected = new Error("later");

    expect(
      await settleWithin(() => {
        throw thrown;
      }),
    ).toEqual({ kind: "error", error: thrown });
    expect(await settleWithin(async () => Promise.reject(rejected))).toEqual({ kind: "error", error: rejected });
  });

  it("stops waiting after timeoutMs and aborts the call's signal with a TimeoutError", async () => {
    let seen: AbortSignal | undefined;

    const outcome = await settleWithin(
      (signal) => {
        seen = signal;
        return new Promise(() => {});
      },
      { timeoutMs: 20 },
    );

    expect(outcome).toEqual({ kind: "timeout" });
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toMatchObject({ name: "TimeoutError" });
  });

  it("stops waiting when the caller's signal aborts, passing its reason on to the call", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    let seen: AbortSignal | undefined;

    const pending = settleWithin(
      (signal) => {
        seen = signal;
        return new Promise(() => {});
      },
      { signal: controller.signal },
    );
    controller.abort(reason);

    expect(await pending).toEqual({ kind: "aborted", reason });
    expect(seen?.reason).toBe(reason);
  });

  it("does not call fn when the signal has already aborted", async () => {
    let called = false;

    const outcome = await settleWithin(
      () => {
        called = true;
      },
      { signal: AbortSignal.abort("gone") },
    );

    expect(outcome).toEqual({ kind: "aborted", reason: "gone" });
    expect(called).toBe(false);
  });

  it("ignores a rejection of a call it stopped waiting for", async () => {
    // The test run fails on any unhandled rejection.
    const outcome = await settleWithin(
      (signal) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("rejected after")))),
      { timeoutMs: 10 },
    );
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(outcome.kind).toBe("timeout");
  });
});
