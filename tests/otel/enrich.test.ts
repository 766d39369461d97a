import type { Attributes } from "@opentelemetry/api";
import type { MediaUpload, MediaUploader } from "@svc/core";
import type { ReadableSpan } from "@svc/otel";
import { describe, expect, it } from "vitest";
import { EnrichStage, MASK_FAILED_MARKER, type OutgoingSpan } from "../../packages/otel/src/pipeline/enrich.ts";
import { captureLogs } from "../support/logs.ts";

const URI = "data:image/png;base64,iVBORw0KGgo=";

/** An uploader that records what it is asked to store. */
function recordingUploader(): { uploader: MediaUploader; uploads: MediaUpload[] } {
  const uploads: MediaUpload[] = [];
  const uploader = {
    upload: async (media: MediaUpload) => {
      uploads.push(media);
      return { ok: true as const, alreadyStored: false };
    },
  } as unknown as MediaUploader;
  return { uploader, uploads };
}

function outgoing(attributes: Attributes): OutgoingSpan {
  const span = {
    name: "s",
    attributes,
    spanContext: () => ({ traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 1 }),
  } as unknown as ReadableSpan;
  return { span };
}

describe("EnrichStage", () => {
  it("replaces data URIs in input, output and metadata with references and uploads each", async () => {
    const { uploader, uploads } = recordingUploader();
    const item = outgoing({
      "svc.observation.input": JSON.stringify({ image: URI }),
      "svc.observation.output": "plain answer",
      "svc.observation.metadata.photo": URI,
      "svc.observation.type": "generation",
    });

    await new EnrichStage(undefined, uploader, 1000).enrich([item]);

    expect(item.attributes?.["svc.observation.input"]).toMatch(
      /@@@svcMedia:type=image\/png\|id=.+\|source=base64_data_uri@@@/,
    );
    expect(item.attributes?.["svc.observation.metadata.photo"]).toMatch(/^@@@svcMedia:/);
    expect(item.attributes?.["svc.observation.output"]).toBe("plain answer");
    expect(uploads.map((u) => u.target.field).sort()).toEqual(["input", "metadata"]);
  });

  it("leaves data URIs outside input, output and metadata alone", async () => {
    const { uploader, uploads } = recordingUploader();
    const item = outgoing({ "http.url": URI, "svc.observation.model.name": URI });

    await new EnrichStage(undefined, uploader, 1000).enrich([item]);

    expect(item.attributes).toEqual({ "http.url": URI, "svc.observation.model.name": URI });
    expect(uploads).toEqual([]);
  });

  it("looks for media in the masked value, not in the original", async () => {
    const { uploader, uploads } = recordingUploader();
    const item = outgoing({ "svc.observation.input": "secret", "svc.observation.output": URI });
    const mask = ({ data }: { data: unknown }) => (data === "secret" ? URI : "hidden");

    await new EnrichStage(mask, uploader, 1000).enrich([item]);

    expect(item.attributes?.["svc.observation.output"]).toBe("hidden");
    expect(item.attributes?.["svc.observation.input"]).toMatch(/^@@@svcMedia:/);
    expect(uploads).toHaveLength(1);
  });

  it("awaits a mask that returns a promise", async () => {
    const item = outgoing({ "svc.observation.input": "secret" });

    await new EnrichStage(async () => "masked later", undefined, 1000).enrich([item]);

    expect(item.attributes?.["svc.observation.input"]).toBe("masked later");
  });

  it("exports the marker, never the value, and uploads none of its media, whatever the mask throws", async () => {
    captureLogs();
    const unprintable = {
      toString() {
        throw new Error("no");
      },
    };
    const masks = [
      () => {
        throw unprintable;
      },
      () => {
        throw "a string";
      },
      () => {
        throw null;
      },
      () => {
        throw new Error("an error");
      },
      async () => {
        throw new Error("rejected");
      },
      async () => {
        throw unprintable;
      },
      () => ({ big: 1n }),
    ];
    for (const mask of masks) {
      const { uploader, uploads } = recordingUploader();
      const item = outgoing({ "svc.observation.input": `secret ${URI}` });
      await new EnrichStage(mask, uploader, 1000).enrich([item]);
      expect(item.attributes?.["svc.observation.input"]).toBe(MASK_FAILED_MARKER);
      expect(uploads).toEqual([]);
    }
  });

  it("exports the marker when an async mask does not settle in time", async () => {
    captureLogs();
    const item = outgoing({ "svc.observation.input": "secret" });

    await new EnrichStage(() => new Promise(() => {}), undefined, 20).enrich([item]);

    expect(item.attributes?.["svc.observation.input"]).toBe(MASK_FAILED_MARKER);
  });

  it("scans nothing and copies nothing when there is neither mask nor uploader", async () => {
    const source = { "svc.observation.input": URI };
    const item = outgoing(source);

    await new EnrichStage(undefined, undefined, 1000).enrich([item]);

    expect(item.attributes).toBe(source);
  });
});
