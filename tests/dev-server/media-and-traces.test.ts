import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hexId, otlpJsonExport, useDevServer } from "../support/dev-server.ts";

const bytes = Buffer.from("\x89PNG fake image bytes");
const sha256Hash = createHash("sha256").update(bytes).digest("base64");

describe("dev server: media", () => {
  it("hands out an upload URL, takes the upload and serves the file", async () => {
    const server = await useDevServer();

    const requested = await server.request("POST", "/api/public/media", {
      body: { contentType: "image/png", contentLength: bytes.length, sha256Hash, field: "input", traceId: "t" },
    });
    const put = await fetch(requested.body.uploadUrl, {
      method: "PUT",
      headers: { "content-type": "image/png", "x-amz-checksum-sha256": sha256Hash },
      body: bytes,
    });
    const patched = await server.request("PATCH", `/api/public/media/${requested.body.mediaId}`, {
      body: { uploadedAt: new Date().toISOString(), uploadHttpStatus: 200, uploadTimeMs: 3 },
    });
    const media = await server.request("GET", `/api/public/media/${requested.body.mediaId}`);
    const download = await fetch(media.body.url);

    expect(requested.body.mediaId).toBe(createHash("sha256").update(bytes).digest("base64url").slice(0, 22));
    expect(put.status).toBe(200);
    expect(patched.status).toBe(204);
    expect(media.body).toMatchObject({ mediaId: requested.body.mediaId, contentType: "image/png" });
    expect(media.body.contentLength).toBe(bytes.length);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it("gives no upload URL for a file it already has", async () => {
    const server = await useDevServer();
    const body = { contentType: "image/png", contentLength: bytes.length, sha256Hash, field: "input" };
    const first = await server.request("POST", "/api/public/media", { body });
    await fetch(first.body.uploadUrl, { method: "PUT", headers: { "content-type": "image/png" }, body: bytes });

    const second = await server.request("POST", "/api/public/media", { body });

    expect(second.body).toEqual({ mediaId: first.body.mediaId, uploadUrl: null });
  });

  it("refuses an upload whose bytes do not match the announced hash", async () => {
    const server = await useDevServer();
    const first = await server.request("POST", "/api/public/media", {
      body: { contentType: "image/png", contentLength: bytes.length, sha256Hash, field: "input" },
    });

    const put = await fetch(first.body.uploadUrl, {
      method: "PUT",
      headers: { "content-type": "image/png" },
      body: Buffer.from("other bytes"),
    });

    expect(put.status).toBe(400);
  });

  it("answers 400 to a content type outside the API definition's list", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/media", {
      body: { contentType: "application/x-unknown", contentLength: 1, sha256Hash, field: "input" },
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Invalid request body: body\/contentType must be equal to one of the allowed/);
  });
});

describe("dev server: trace deletion", () => {
  it("deletes one trace with its observations and scores, leaving other traces", async () => {
    const server = await useDevServer();
    const [gone, kept] = [hexId(16), hexId(16)];
    await server.request("POST", "/api/public/otel/v1/traces", {
      body: otlpJsonExport([
        { traceId: gone, spanId: hexId(8), name: "a" },
        { traceId: kept, spanId: hexId(8), name: "b" },
      ]),
    });
    await server.request("POST", "/api/public/scores", { body: [{ name: "s", value: 1, traceId: gone }] });

    const res = await server.request("DELETE", `/api/public/traces/${gone}`);
    const observations = await server.request("GET", "/api/public/v2/observations");
    const scores = await server.request("GET", `/api/public/v3/scores?traceId=${gone}`);

    expect(res.body).toEqual({ message: "Trace deleted successfully" });
    expect(observations.body.data.map((o: { traceId: string }) => o.traceId)).toEqual([kept]);
    expect(scores.body.data).toEqual([]);
  });

  it("deletes several traces at once", async () => {
    const server = await useDevServer();
    const ids = [hexId(16), hexId(16), hexId(16)];
    await server.request("POST", "/api/public/otel/v1/traces", {
      body: otlpJsonExport(ids.map((traceId) => ({ traceId, spanId: hexId(8), name: "s" }))),
    });

    await server.request("DELETE", "/api/public/traces", { body: { traceIds: ids.slice(0, 2) } });
    const observations = await server.request("GET", "/api/public/v2/observations");

    expect(observations.body.data.map((o: { traceId: string }) => o.traceId)).toEqual([ids[2]]);
  });

  it("answers 400 when traceIds is missing", async () => {
    const server = await useDevServer();

    const res = await server.request("DELETE", "/api/public/traces", { body: {} });

    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Invalid request body: body must have required property 'traceIds'");
  });
});
