import { inspect } from "node:util";
import { SvcClient, SvcMediaReference } from "@svc/client";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { type SeenRequest, startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const ref = (id: string) => `@@@svcMedia:type=image/png|id=${id}|source=bytes@@@`;

const dataset = {
  id: "ds-1",
  name: "vision",
  description: null,
  metadata: null,
  inputSchema: null,
  expectedOutputSchema: null,
  projectId: "p-1",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

interface MediaReferenceSpec {
  field: string;
  jsonPath: string;
  id: string;
  media?: null;
}

/** Serves one dataset item with the given fields and media references, and each media's bytes at /files/<id>. */
async function serveItem(fields: Record<string, unknown>, references: MediaReferenceSpec[]) {
  let server: TestServer | undefined;
  server = await startServer((req: SeenRequest) => {
    if (req.path === "/api/public/v2/datasets/vision") return { json: dataset };
    if (req.path === "/api/public/dataset-items") {
      const item = {
        id: "item-1",
        status: "ACTIVE",
        input: null,
        expectedOutput: null,
        metadata: null,
        sourceTraceId: null,
        sourceObservationId: null,
        datasetId: "ds-1",
        datasetName: "vision",
        createdAt: dataset.createdAt,
        updatedAt: dataset.updatedAt,
        ...fields,
        mediaReferences: references.map(({ field, jsonPath, id, media }) => ({
          field,
          jsonPath,
          referenceString: ref(id),
          media:
            media === null
              ? null
              : {
                  mediaId: id,
                  contentType: "image/png",
                  contentLength: 3,
                  url: `${server?.url}/files/${id}`,
                  urlExpiry: "2999-01-01T00:00:00.000Z",
                },
        })),
      };
      return { json: { data: [item], meta: { page: 1, limit: 50, totalItems: 1, totalPages: 1 } } };
    }
    const file = /^\/files\/(.+)$/.exec(req.path);
    if (file) return { text: `bytes of ${file[1]}` };
    return { status: 404, json: { message: "not found" } };
  });
  onTestFinished(() => server?.close());
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" });
  const [item] = (await svc.dataset.get("vision")).items;
  return { server, item: item as unknown as Record<string, unknown> };
}

describe("dataset.get with media references", () => {
  it("puts an SvcMediaReference at each path the server lists, in input, expectedOutput and metadata", async () => {
    const { item } = await serveItem(
      {
        input: { question: "same?", image: ref("a"), gallery: [ref("b"), ref("c")], matrix: [[ref("d")]] },
        expectedOutput: { deep: { "odd key's [0].x": ref("e") } },
        metadata: ref("f"),
      },
      [
        { field: "input", jsonPath: "$['image']", id: "a" },
        { field: "input", jsonPath: "$['gallery'][0]", id: "b" },
        { field: "input", jsonPath: "$['gallery'][1]", id: "c" },
        { field: "input", jsonPath: "$['matrix'][0][0]", id: "d" },
        { field: "expectedOutput", jsonPath: "$['deep']['odd key's [0].x']", id: "e" },
        { field: "metadata", jsonPath: "$", id: "f" },
      ],
    );

    const input = item.input as { question: string; image: unknown; gallery: unknown[]; matrix: unknown[][] };
    const placed = [
      input.image,
      input.gallery[0],
      input.gallery[1],
      input.matrix[0]?.[0],
      (item.expectedOutput as { deep: Record<string, unknown> }).deep["odd key's [0].x"],
      item.metadata,
    ];
    for (const [i, value] of placed.entries()) {
      expect(value).toBeInstanceOf(SvcMediaReference);
      expect(value).toMatchObject({
        mediaId: "abcdef"[i],
        contentType: "image/png",
        referenceString: ref("abcdef"[i]!),
      });
    }
    expect(input.question).toBe("same?");
    expect(JSON.parse(JSON.stringify(item.input))).toEqual({
      question: "same?",
      image: ref("a"),
      gallery: [ref("b"), ref("c")],
      matrix: [[ref("d")]],
    });
  });

  it("downloads the content of a placed reference without sending credentials", async () => {
    const { server, item } = await serveItem({ input: { image: ref("a") } }, [
      { field: "input", jsonPath: "$['image']", id: "a" },
    ]);
    const image = (item.input as { image: SvcMediaReference }).image;

    expect(new TextDecoder().decode(await image.fetchBytes())).toBe("bytes of a");
    expect(await image.fetchBase64()).toBe(Buffer.from("bytes of a").toString("base64"));
    expect(await image.fetchDataUri()).toBe(`data:image/png;base64,${Buffer.from("bytes of a").toString("base64")}`);
    const downloads = server.seen.filter((r) => r.path === "/files/a");
    expect(downloads).toHaveLength(3);
    expect(downloads[0]?.headers.authorization).toBeUndefined();
    expect(downloads[0]?.headers["user-agent"]).toMatch(/^svc-sdk-js\//);
  });

  it("leaves unparseable and unreachable paths as they are and logs them in one warning", async () => {
    const logs = captureLogs();
    const { item } = await serveItem({ input: { image: ref("a"), list: [ref("b")] }, expectedOutput: null }, [
      { field: "input", jsonPath: "$.image", id: "a" },
      { field: "input", jsonPath: "$['list'][3]", id: "b" },
      { field: "input", jsonPath: "$['list']['0']", id: "b" },
      { field: "expectedOutput", jsonPath: "$['image']", id: "a" },
      { field: "somethingNew", jsonPath: "$['image']", id: "a" },
    ]);

    expect(item.input).toEqual({ image: ref("a"), list: [ref("b")] });
    expect(item.expectedOutput).toBeNull();
    expect(item).not.toHaveProperty("somethingNew");
    const warnings = logs.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings).toEqual([
      expect.stringContaining(
        `DatasetManager.get: 5 media reference(s) left as reference strings; the first: item item-1: the path input "$.image" cannot be parsed`,
      ),
    ]);
  });

  it("leaves a reference alone when the server has no media record for it, or when it sits inside a longer text", async () => {
    const logs = captureLogs();
    const text = `compare ${ref("b")} with the other`;
    const { item } = await serveItem({ input: { image: ref("a"), note: text } }, [
      { field: "input", jsonPath: "$['image']", id: "a", media: null },
      { field: "input", jsonPath: "$['note']", id: "b" },
    ]);

    expect(item.input).toEqual({ image: ref("a"), note: text });
    expect(logs.filter((l) => l.level === "warn")).toEqual([]);
  });

  it("writes a key named __proto__ as a plain key", async () => {
    const { item } = await serveItem({ input: JSON.parse(`{"__proto__": "${ref("a").replaceAll('"', '\\"')}"}`) }, [
      { field: "input", jsonPath: "$['__proto__']", id: "a" },
    ]);

    const input = item.input as Record<string, unknown>;
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(input, "__proto__")?.value).toBeInstanceOf(SvcMediaReference);
  });
});

describe("the paths of media references", () => {
  it("reads the server's bracket form into keys and indexes", async () => {
    const { item } = await serveItem(
      { input: { a: { b: [0, 1, ref("a")] }, "O'connor": ref("b"), "a.b": { "c[0]": ref("c") } } },
      [
        { field: "input", jsonPath: "$['a']['b'][2]", id: "a" },
        { field: "input", jsonPath: "$['O'connor']", id: "b" },
        { field: "input", jsonPath: "$['a.b']['c[0]']", id: "c" },
      ],
    );

    const input = item.input as { a: { b: unknown[] }; "O'connor": unknown; "a.b": { "c[0]": unknown } };
    expect(
      [input.a.b[2], input["O'connor"], input["a.b"]["c[0]"]].map((v) => (v as SvcMediaReference).mediaId),
    ).toEqual(["a", "b", "c"]);
  });

  it("leaves a reference whose path has any other form where it is, and counts it", async () => {
    const logs = captureLogs();
    const paths = ["image", "$.image", "$['a'", "$[a]", "$[]", "$['a']x", "$[-1]"];
    const { item } = await serveItem(
      { input: { image: ref("a"), a: ref("a") } },
      paths.map((jsonPath) => ({ field: "input", jsonPath, id: "a" })),
    );

    expect(item.input).toEqual({ image: ref("a"), a: ref("a") });
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringContaining(
        `DatasetManager.get: 7 media reference(s) left as reference strings; the first: item item-1: the path input "image" cannot be parsed`,
      ),
    ]);
  });
});

describe("SvcMediaReference", () => {
  afterEach(() => vi.useRealTimers());

  const params = {
    mediaId: "m-1",
    contentType: "image/png",
    url: "http://127.0.0.1:9/never",
    referenceString: ref("m-1"),
  };

  it("exposes what it was given and serialises to its reference string", () => {
    const media = new SvcMediaReference({ ...params, urlExpiry: "2026-06-16T12:00:00.000Z", contentLength: 12 });

    expect(media).toMatchObject({ ...params, urlExpiry: "2026-06-16T12:00:00.000Z", contentLength: 12 });
    expect(JSON.stringify({ image: media })).toBe(JSON.stringify({ image: ref("m-1") }));
    expect(String(media)).toBe(ref("m-1"));
  });

  it("prints under its own name", () => {
    expect(inspect(new SvcMediaReference(params))).toMatch(/^SvcMediaReference \{/);
    expect(SvcMediaReference.name).toBe("SvcMediaReference");
  });

  it("tells whether the URL has expired or will within the threshold", () => {
    vi.useFakeTimers({ now: Date.parse("2026-06-16T12:00:00.000Z") });
    const soon = new SvcMediaReference({ ...params, urlExpiry: "2026-06-16T12:00:30.000Z" });

    expect(new SvcMediaReference(params).isUrlExpired()).toBe(false);
    expect(new SvcMediaReference({ ...params, urlExpiry: "not a date" }).isUrlExpired()).toBe(false);
    expect(soon.isUrlExpired()).toBe(true);
    expect(soon.isUrlExpired(10)).toBe(false);
    expect(new SvcMediaReference({ ...params, urlExpiry: "2026-06-16T11:00:00.000Z" }).isUrlExpired(0)).toBe(true);
  });

  it("rejects fetchBytes with the media id and the status when the download fails", async () => {
    const server = await startServer(() => ({ status: 403, text: "expired" }));
    onTestFinished(server.close);
    const media = new SvcMediaReference({ ...params, url: `${server.url}/files/m-1?sig=secret` });

    await expect(media.fetchBytes()).rejects.toThrow(
      /media m-1 failed: HTTP 403 from 127\.0\.0\.1:\d+ GET \/files\/m-1/,
    );
    await expect(media.fetchDataUri()).rejects.toThrow(/HTTP 403/);
  });
});
