import { createHash } from "node:crypto";
import { NotFoundError, SvcClient, SvcMedia, SvcMediaReference } from "@svc/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Reply, type SeenRequest, startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const dataset = {
  id: "ds-1",
  name: "qa",
  description: "questions",
  metadata: { owner: "me" },
  inputSchema: null,
  expectedOutputSchema: null,
  projectId: "p-1",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-02T00:00:00.000Z",
};

const item = (n: number) => ({
  id: `item-${n}`,
  input: { q: n },
  expectedOutput: n,
  datasetName: "qa",
  status: "ACTIVE",
});

/** Serves the dataset and `total` items in pages of the requested size. */
function datasetServer(total: number) {
  return (req: SeenRequest): Reply => {
    if (req.path === "/api/public/v2/datasets/qa") return { json: dataset };
    if (req.path === "/api/public/dataset-items" && req.method === "GET") {
      const page = Number(req.query.get("page"));
      const limit = Number(req.query.get("limit"));
      const all = Array.from({ length: total }, (_, i) => item(i));
      const data = all.slice((page - 1) * limit, page * limit);
      return { json: { data, meta: { page, limit, totalItems: total, totalPages: Math.ceil(total / limit) } } };
    }
    return { status: 404, json: { message: "not found" } };
  };
}

async function setup(reply: (req: SeenRequest) => Reply) {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  return { server, svc: new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" }) };
}

describe("DatasetManager.get", () => {
  it("returns the dataset's fields and every item, reading all pages of 50 by default", async () => {
    const { server, svc } = await setup(datasetServer(120));
    const fetched = await svc.dataset.get("qa");

    expect(fetched).toMatchObject({
      id: "ds-1",
      name: "qa",
      description: "questions",
      metadata: { owner: "me" },
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(fetched.items.map((i) => i.id)).toEqual(Array.from({ length: 120 }, (_, i) => `item-${i}`));
    const pages = server.seen.filter((r) => r.path === "/api/public/dataset-items");
    expect(pages.map((r) => [r.query.get("datasetName"), r.query.get("page"), r.query.get("limit")])).toEqual([
      ["qa", "1", "50"],
      ["qa", "2", "50"],
      ["qa", "3", "50"],
    ]);
  });

  it("uses fetchItemsPageSize as the page size", async () => {
    const { server, svc } = await setup(datasetServer(5));
    const fetched = await svc.dataset.get("qa", { fetchItemsPageSize: 2 });
    expect(fetched.items).toHaveLength(5);
    expect(server.seen.filter((r) => r.path === "/api/public/dataset-items")).toHaveLength(3);
  });

  it("stops after one request for an empty dataset", async () => {
    const { server, svc } = await setup(datasetServer(0));
    expect((await svc.dataset.get("qa")).items).toEqual([]);
    expect(server.seen.filter((r) => r.path === "/api/public/dataset-items")).toHaveLength(1);
  });

  it("returns items as plain data without a link method", async () => {
    const { svc } = await setup(datasetServer(1));
    const [first] = (await svc.dataset.get("qa")).items;
    expect(first).toEqual(item(0));
    expect((first as unknown as { link?: unknown }).link).toBeUndefined();
  });

  it("throws NotFoundError for an unknown dataset", async () => {
    const { svc } = await setup(datasetServer(0));
    await expect(svc.dataset.get("nope")).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("DatasetManager.createItem", () => {
  it("posts the item to /api/public/dataset-items and returns the server's item", async () => {
    const { server, svc } = await setup((req) => ({ json: { ...item(7), ...(req.json as object) } }));
    const created = await svc.dataset.createItem({
      datasetName: "qa",
      input: { q: "x" },
      expectedOutput: "y",
      id: "i-7",
    });

    expect(server.seen[0]).toMatchObject({ method: "POST", path: "/api/public/dataset-items" });
    expect(server.seen[0]?.json).toEqual({ datasetName: "qa", input: { q: "x" }, expectedOutput: "y", id: "i-7" });
    expect(created).toMatchObject({ id: "i-7", datasetName: "qa" });
  });
});

describe("DatasetManager.createItem with media", () => {
  const png = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
  const sha = createHash("sha256").update(png).digest("base64");
  const mediaId = sha.replace(/\+/g, "-").replace(/\//g, "_").slice(0, 22);

  function mediaServer(options: { uploadStatus?: number; alreadyStored?: boolean; wrongId?: boolean } = {}) {
    return async (req: SeenRequest): Promise<Reply> => {
      if (req.path === "/api/public/v2/datasets/qa") return { json: dataset };
      if (req.method === "POST" && req.path === "/api/public/media") {
        const uploadUrl = options.alreadyStored ? null : `http://${req.headers.host}/upload/${mediaId}`;
        return { json: { mediaId: options.wrongId ? "other" : mediaId, uploadUrl } };
      }
      if (req.method === "PUT")
        return { status: options.uploadStatus ?? 200, text: options.uploadStatus ? "denied" : "" };
      if (req.method === "PATCH") return { status: 204 };
      if (req.method === "POST" && req.path === "/api/public/dataset-items") return { json: req.json };
      return { status: 404, json: {} };
    };
  }

  it("uploads each media once, then posts the item with reference strings in place of the media", async () => {
    const { server, svc } = await setup(() => ({ json: {} }));
    server.reply(mediaServer());
    const image = new SvcMedia({ contentBytes: png, contentType: "image/png" });
    const input = { question: "What is shown?", image, again: [image] };
    await svc.dataset.createItem({ datasetName: "qa", input, metadata: { thumb: image } });

    const reference = `@@@svcMedia:type=image/png|id=${mediaId}|source=bytes@@@`;
    const registered = server.seen.filter((r) => r.method === "POST" && r.path === "/api/public/media");
    expect(registered).toHaveLength(1);
    const item = server.seen.find((r) => r.path === "/api/public/dataset-items")?.json as Record<string, unknown>;
    expect(registered[0]?.json).toEqual({
      field: "input",
      datasetId: "ds-1",
      datasetItemId: item.id,
      contentType: "image/png",
      contentLength: png.length,
      sha256Hash: sha,
    });
    const put = server.seen.find((r) => r.method === "PUT");
    expect(put?.path).toBe(`/upload/${mediaId}`);
    expect(put?.headers["content-type"]).toBe("image/png");
    expect(put?.headers["x-amz-checksum-sha256"]).toBe(sha);
    expect(new Uint8Array(put?.body ?? [])).toEqual(png);
    const patch = server.seen.find((r) => r.method === "PATCH");
    expect(patch?.path).toBe(`/api/public/media/${mediaId}`);
    expect(patch?.json).toMatchObject({ uploadHttpStatus: 200 });
    expect(item).toMatchObject({
      datasetName: "qa",
      input: { question: "What is shown?", image: reference, again: [reference] },
      metadata: { thumb: reference },
    });
    expect(item.id).toEqual(expect.any(String));
    expect(input.image).toBe(image);
  });

  it("skips the upload of a media the server already stores", async () => {
    const { server, svc } = await setup(() => ({ json: {} }));
    server.reply(mediaServer({ alreadyStored: true }));
    const image = new SvcMedia({ base64DataUri: `data:image/png;base64,${Buffer.from(png).toString("base64")}` });
    await svc.dataset.createItem({ datasetName: "qa", input: image });
    expect(server.seen.filter((r) => r.method === "PUT")).toHaveLength(0);
    const item = server.seen.find((r) => r.path === "/api/public/dataset-items")?.json as Record<string, unknown>;
    expect(item.input).toBe(`@@@svcMedia:type=image/png|id=${mediaId}|source=base64_data_uri@@@`);
  });

  it("throws and creates no item when the upload fails", async () => {
    const { server, svc } = await setup(() => ({ json: {} }));
    server.reply(mediaServer({ uploadStatus: 403 }));
    const image = new SvcMedia({ contentBytes: png, contentType: "image/png" });
    await expect(svc.dataset.createItem({ datasetName: "qa", input: { image } })).rejects.toThrow(/HTTP 403/);
    expect(server.seen.find((r) => r.method === "PATCH")?.json).toMatchObject({
      uploadHttpStatus: 403,
      uploadHttpError: "denied",
    });
    expect(server.seen.some((r) => r.path === "/api/public/dataset-items")).toBe(false);
  });

  it("stores an SvcMediaReference read from a dataset as its reference string, uploading nothing", async () => {
    const { server, svc } = await setup((req) => ({ json: req.json }));
    const referenceString = `@@@svcMedia:type=image/png|id=${mediaId}|source=bytes@@@`;
    const image = new SvcMediaReference({ mediaId, contentType: "image/png", url: "http://x/y", referenceString });

    await svc.dataset.createItem({ datasetName: "copy", input: { image, list: [image] } });

    expect(server.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/public/dataset-items"]);
    expect(server.seen[0]?.json).toEqual({
      datasetName: "copy",
      input: { image: referenceString, list: [referenceString] },
    });
  });

  it("throws when the server's media id differs from the content's", async () => {
    const { server, svc } = await setup(() => ({ json: {} }));
    server.reply(mediaServer({ wrongId: true }));
    const image = new SvcMedia({ contentBytes: png, contentType: "image/png" });
    await expect(svc.dataset.createItem({ datasetName: "qa", input: image })).rejects.toThrow(/media id/);
    expect(server.seen.some((r) => r.method === "PUT")).toBe(false);
  });
});

describe("SvcMedia", () => {
  const hello = Buffer.from("hello");
  const helloSha = createHash("sha256").update(hello).digest("base64");
  const helloId = helloSha.replace(/\+/g, "-").replace(/\//g, "_").slice(0, 22);
  const helloUri = `data:text/plain;base64,${hello.toString("base64")}`;

  it("takes the previous major's constructor forms, with or without source", async () => {
    const forms = [
      new SvcMedia({ source: "base64_data_uri", base64DataUri: helloUri }),
      new SvcMedia({ base64DataUri: helloUri }),
      new SvcMedia({ source: "bytes", contentBytes: new Uint8Array(hello), contentType: "text/plain" }),
      new SvcMedia({ contentBytes: hello, contentType: "text/plain" }),
    ];
    expect(forms.map((m) => [m.source, m.contentType, m.contentLength])).toEqual([
      ["base64_data_uri", "text/plain", 5],
      ["base64_data_uri", "text/plain", 5],
      ["bytes", "text/plain", 5],
      ["bytes", "text/plain", 5],
    ]);
  });

  it("keeps getTag, getId, getSha256Hash and base64DataUri, and serialises to the data URI", async () => {
    const media = new SvcMedia({ source: "base64_data_uri", base64DataUri: helloUri });

    expect(await media.getSha256Hash()).toBe(helloSha);
    expect(await media.getId()).toBe(helloId);
    expect(await media.getTag()).toBe(`@@@svcMedia:type=text/plain|id=${helloId}|source=base64_data_uri@@@`);
    expect(media.base64DataUri).toBe(helloUri);
    expect(JSON.stringify({ m: media })).toBe(JSON.stringify({ m: helloUri }));
  });

  it("logs invalid input once and yields a media without content, never throwing", async () => {
    const logs = captureLogs();
    const invalid = [
      new SvcMedia({ base64DataUri: "hello" }),
      new SvcMedia({ base64DataUri: "data:text/plain,hello" }),
      new SvcMedia({ base64DataUri: `data:image/x-unknown;base64,${hello.toString("base64")}` }),
      new SvcMedia({ contentBytes: hello, contentType: "banana" as "text/plain" }),
      new SvcMedia({ contentBytes: "hello" as unknown as Uint8Array, contentType: "text/plain" }),
      new SvcMedia(undefined as never),
    ];

    for (const media of invalid) {
      expect(await media.getTag()).toBeNull();
      expect(await media.getId()).toBeNull();
      expect(await media.getSha256Hash()).toBeUndefined();
      expect(media.base64DataUri).toBeNull();
      expect(media.contentLength).toBeUndefined();
    }
    expect(logs.map((l) => [l.level, l.message])).toEqual([
      [
        "warn",
        expect.stringMatching(/SvcMedia: invalid media, nothing will be uploaded: base64DataUri: not a data URI/),
      ],
      ["warn", expect.stringMatching(/base64DataUri: the data URI is not base64/)],
      ["warn", expect.stringMatching(/content type "image\/x-unknown" is not one the server stores media of/)],
      ["warn", expect.stringMatching(/content type "banana" is not one/)],
      ["warn", expect.stringMatching(/contentBytes must be a Uint8Array/)],
      ["warn", expect.stringMatching(/pass \{ base64DataUri \} or \{ contentBytes, contentType \}/)],
    ]);
  });

  it("makes createItem throw before any request when a media is invalid", async () => {
    captureLogs();
    const { server, svc } = await setup(() => ({ json: {} }));
    const broken = new SvcMedia({ base64DataUri: "data:image/png;base64,%%%" });

    await expect(svc.dataset.createItem({ datasetName: "qa", input: { broken } })).rejects.toThrow(
      /an SvcMedia is invalid/,
    );
    expect(server.seen).toEqual([]);
  });
});
