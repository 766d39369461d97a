import { observe, propagateAttributes, startActiveObservation, startObservation } from "@svc/tracing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byName, type E2eSetup, startE2e } from "../support/e2e.ts";

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

describe("SvcSpanProcessor against the dev server", () => {
  it("stores nested observations with their types, parents, input and output", async () => {
    const traceId = await startActiveObservation("root", async (root) => {
      root.update({ input: { question: "2+2?" } });
      await startActiveObservation(
        "llm",
        async (generation) => {
          generation.update({
            model: "m-1",
            modelParameters: { temperature: 0 },
            usageDetails: { input: 5, output: 1 },
            output: "4",
          });
        },
        { asType: "generation" },
      );
      startObservation("note", { input: "checked" }, { asType: "event" });
      root.update({ output: { answer: 4 } });
      return root.traceId;
    });
    await e2e.flush();

    const observations = await e2e.observations(traceId);

    const root = byName(observations, "root");
    expect(root).toMatchObject({
      type: "SPAN",
      parentObservationId: null,
      isRootObservation: true,
      input: '{"question":"2+2?"}',
      output: '{"answer":4}',
    });
    expect(byName(observations, "llm")).toMatchObject({
      type: "GENERATION",
      parentObservationId: root.id,
      providedModelName: "m-1",
      modelParameters: { temperature: 0 },
      usageDetails: { input: 5, output: 1 },
      output: "4",
    });
    expect(byName(observations, "note")).toMatchObject({ type: "EVENT", parentObservationId: root.id });
  });

  it("keeps metadata types and nested objects", async () => {
    const traceId = await startActiveObservation("with-metadata", async (span) => {
      span.update({ metadata: { count: 3, ok: true, label: "x", nested: { a: { b: 1 } } } });
      return span.traceId;
    });
    await e2e.flush();

    const [observation] = await e2e.observations(traceId);

    expect(observation?.metadata).toEqual({ count: 3, ok: true, label: "x", nested: { a: { b: 1 } } });
  });

  it("puts propagated trace attributes on every observation and reads them by session", async () => {
    const sessionId = `session-${Date.now()}`;
    const traceId = await propagateAttributes(
      { userId: "user-1", sessionId, tags: ["e2e", "propagated"], traceName: "propagated-trace" },
      () =>
        startActiveObservation("outer", async (outer) => {
          await startActiveObservation("inner", async () => undefined);
          return outer.traceId;
        }),
    );
    await e2e.flush();

    const { data } = await e2e.svc.api.observations.getMany({ sessionId, fields: "core,basic,trace_context" });

    expect(data.map((o) => o.name).sort()).toEqual(["inner", "outer"]);
    for (const o of data) {
      expect(o).toMatchObject({ traceId, userId: "user-1", sessionId, traceName: "propagated-trace" });
      expect(o.tags).toEqual(["e2e", "propagated"]);
    }
  });

  it("records the input, output and error level of functions wrapped with observe", async () => {
    const double = observe(async (n: number) => n * 2, { name: "double" });
    const fail = observe(
      () => {
        throw new Error("no luck");
      },
      { name: "fail" },
    );
    const traceId = await startActiveObservation("calls", async (span) => {
      await double(21);
      expect(() => fail()).toThrow("no luck");
      return span.traceId;
    });
    await e2e.flush();

    const observations = await e2e.observations(traceId);

    expect(byName(observations, "double")).toMatchObject({ input: "21", output: "42", level: "DEFAULT" });
    expect(byName(observations, "fail")).toMatchObject({ level: "ERROR", statusMessage: "no luck" });
  });

  it("uploads a data URI found in the input and exports a media reference that resolves back", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const dataUri = `data:image/png;base64,${png.toString("base64")}`;
    const traceId = await startActiveObservation("with-image", async (span) => {
      span.update({ input: { image: dataUri } });
      return span.traceId;
    });
    await e2e.flush();

    const [observation] = await e2e.observations(traceId);
    const input = JSON.parse(String(observation?.input)) as { image: string };
    const mediaId = /id=([^|]+)\|/.exec(input.image)?.[1] ?? "";
    const media = await e2e.svc.api.media.get(mediaId);
    const resolved = await e2e.svc.media.resolveReferences({ obj: input, resolveWith: "base64DataUri" });

    expect(input.image).toMatch(/^@@@svcMedia:type=image\/png\|id=[^|]+\|source=base64_data_uri@@@$/);
    expect(media).toMatchObject({ mediaId, contentType: "image/png", contentLength: png.length });
    expect(resolved).toEqual({ image: dataUri });
  });
});
