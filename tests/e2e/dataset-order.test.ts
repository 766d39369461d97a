import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eSetup, startE2e } from "../support/e2e.ts";

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

describe("svc.dataset.get item order", () => {
  it("keeps the order of the server's item list, page after page, without sorting", async () => {
    const name = "ordered-dataset";
    await e2e.svc.api.datasets.create({ name });
    for (let i = 0; i < 7; i++) await e2e.svc.dataset.createItem({ datasetName: name, input: { n: i } });

    const dataset = await e2e.svc.dataset.get(name, { fetchItemsPageSize: 3 });
    const listed: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const result = await e2e.svc.api.datasetItems.list({ datasetName: name, page, limit: 3 });
      listed.push(...result.data.map((item) => item.id));
    }

    expect(dataset.items.map((item) => item.id)).toEqual(listed);
    expect(listed).toHaveLength(7);
  });
});
