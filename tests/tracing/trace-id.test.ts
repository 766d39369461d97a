import { createTraceId } from "@svc/tracing";
import { describe, expect, it } from "vitest";

describe("createTraceId", () => {
  it("derives the same 32-hex id from the same seed", async () => {
    const first = await createTraceId("order-42");
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(await createTraceId("order-42")).toBe(first);
  });

  it("derives different ids from different seeds", async () => {
    expect(await createTraceId("a")).not.toBe(await createTraceId("b"));
  });

  it("returns a random id without a seed", async () => {
    const [a, b] = await Promise.all([createTraceId(), createTraceId()]);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });
});
