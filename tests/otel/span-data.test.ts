import { describe, expect, it } from "vitest";
import { prepareSpanData } from "../../packages/otel/src/internal/span-data.ts";

const URI = "data:image/png;base64,iVBORw0KGgo=";
const noMaskError = () => {
  throw new Error("the mask must not fail here");
};

describe("prepareSpanData", () => {
  it("names input, output and metadata values that hold a base64 data URI as media candidates", () => {
    const source = {
      "svc.observation.input": JSON.stringify({ image: URI }),
      "svc.observation.output": "plain answer",
      "svc.observation.metadata.photo": URI,
      "svc.observation.type": "generation",
    };
    const { attributes, media } = prepareSpanData(source, undefined, true, noMaskError);
    expect(attributes).toBe(source);
    expect(media?.map((m) => m.key)).toEqual(["svc.observation.input", "svc.observation.metadata.photo"]);
  });

  it("ignores data URIs outside input, output and metadata", () => {
    const { media } = prepareSpanData(
      { "http.url": URI, "svc.observation.model.name": URI },
      undefined,
      true,
      noMaskError,
    );
    expect(media).toBeUndefined();
  });

  it("ignores text that mentions data: without a base64 data URI", () => {
    const { media } = prepareSpanData(
      { "svc.observation.input": "see data: below; base64 is an encoding" },
      undefined,
      true,
      noMaskError,
    );
    expect(media).toBeUndefined();
  });

  it("finds a data URI in the masked value, not in the original", () => {
    const source = { "svc.observation.input": "secret", "svc.observation.output": URI };
    const { attributes, media } = prepareSpanData(
      source,
      ({ data }) => (data === "secret" ? URI : "hidden"),
      true,
      noMaskError,
    );
    expect(attributes).toEqual({ "svc.observation.input": URI, "svc.observation.output": "hidden" });
    expect(media?.map((m) => m.key)).toEqual(["svc.observation.input"]);
  });

  it("scans nothing when media upload is off", () => {
    expect(prepareSpanData({ "svc.observation.input": URI }, undefined, false, noMaskError).media).toBeUndefined();
  });
});
