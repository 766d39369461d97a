import { NotFoundError, SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Reply, type SeenRequest, startServer } from "../support/http-server.ts";

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
