import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useDevServer } from "../support/dev-server.ts";

describe("dev server: datasets", () => {
  it("creates a dataset and reads it by name", async () => {
    const server = await useDevServer();

    const created = await server.request("POST", "/api/public/v2/datasets", {
      body: { name: "qa", description: "questions", metadata: { owner: "me" } },
    });
    const read = await server.request("GET", "/api/public/v2/datasets/qa");

    expect(created.body).toMatchObject({ name: "qa", description: "questions", projectId: "dev-project" });
    expect(read.body).toEqual(created.body);
  });

  it("creates items, reads one by id and lists them in pages", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/v2/datasets", { body: { name: "qa" } });
    for (let i = 0; i < 5; i++) {
      await server.request("POST", "/api/public/dataset-items", {
        body: { datasetName: "qa", id: `item-${i}`, input: { q: i }, expectedOutput: i * 2 },
      });
    }

    const one = await server.request("GET", "/api/public/dataset-items/item-3");
    const page1 = await server.request("GET", "/api/public/dataset-items?datasetName=qa&page=1&limit=2");
    const page3 = await server.request("GET", "/api/public/dataset-items?datasetName=qa&page=3&limit=2");

    expect(one.body).toMatchObject({ id: "item-3", input: { q: 3 }, expectedOutput: 6, datasetName: "qa" });
    expect(page1.body.meta).toEqual({ page: 1, limit: 2, totalItems: 5, totalPages: 3 });
    expect(page1.body.data).toHaveLength(2);
    expect(page3.body.data).toHaveLength(1);
  });

  it("answers 404 to an item for a dataset that does not exist", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/dataset-items", { body: { datasetName: "nope", input: 1 } });

    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/Dataset not found: 'nope'/);
  });

  it("updates an item created again with the same id", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/v2/datasets", { body: { name: "qa" } });
    await server.request("POST", "/api/public/dataset-items", { body: { datasetName: "qa", id: "i", input: 1 } });

    await server.request("POST", "/api/public/dataset-items", { body: { datasetName: "qa", id: "i", input: 2 } });
    const list = await server.request("GET", "/api/public/dataset-items?datasetName=qa");

    expect(list.body.data.map((i: { input: number }) => i.input)).toEqual([2]);
  });

  it("deletes an item", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/v2/datasets", { body: { name: "qa" } });
    await server.request("POST", "/api/public/dataset-items", { body: { datasetName: "qa", id: "i", input: 1 } });

    await server.request("DELETE", "/api/public/dataset-items/i");
    const read = await server.request("GET", "/api/public/dataset-items/i");

    expect(read.status).toBe(404);
  });

  it("lists the media references of an item's fields with their paths and download URLs", async () => {
    const server = await useDevServer();
    await server.request("POST", "/api/public/v2/datasets", { body: { name: "qa" } });
    const bytes = Buffer.from("png bytes");
    const sha256Hash = createHash("sha256").update(bytes).digest("base64");
    const media = await server.request("POST", "/api/public/media", {
      body: { contentType: "image/png", contentLength: bytes.length, sha256Hash, field: "input" },
    });
    await fetch(media.body.uploadUrl, { method: "PUT", headers: { "content-type": "image/png" }, body: bytes });
    const ref = `@@@svcMedia:type=image/png|id=${media.body.mediaId}|source=bytes@@@`;
    const unknown = "@@@svcMedia:type=image/png|id=notstored|source=bytes@@@";
    await server.request("POST", "/api/public/dataset-items", {
      body: {
        datasetName: "qa",
        id: "item-m",
        input: { images: [ref, unknown], "10": ref, "a'b": `see ${ref}` },
        metadata: ref,
      },
    });

    const one = await server.request("GET", "/api/public/dataset-items/item-m");
    const listed = await server.request("GET", "/api/public/dataset-items?datasetName=qa");

    const record = {
      mediaId: media.body.mediaId,
      contentType: "image/png",
      contentLength: bytes.length,
      url: `${server.url}/dev-storage/media/${media.body.mediaId}`,
      urlExpiry: expect.any(String),
    };
    expect(one.body.mediaReferences).toEqual([
      { field: "input", referenceString: ref, jsonPath: "$[10]", media: record },
      { field: "input", referenceString: ref, jsonPath: "$['images'][0]", media: record },
      { field: "input", referenceString: ref, jsonPath: "$['a'b']", media: record },
      { field: "metadata", referenceString: ref, jsonPath: "$", media: record },
    ]);
    const withoutExpiry = (refs: { media: object }[]) =>
      refs.map((r) => ({ ...r, media: { ...r.media, urlExpiry: undefined } }));
    expect(withoutExpiry(listed.body.data[0].mediaReferences)).toEqual(withoutExpiry(one.body.mediaReferences));
    expect(Date.parse(one.body.mediaReferences[0].media.urlExpiry)).toBeGreaterThan(Date.now());
    const download = await fetch(one.body.mediaReferences[0].media.url);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
