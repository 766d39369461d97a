import { randomUUID } from "node:crypto";
import { SvcMedia, SvcMediaReference } from "@svc/client";
import { SvcBrowserClient } from "@svc/client/browser";
import { startActiveObservation, startObservation } from "@svc/tracing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byName, type E2eSetup, startE2e } from "../support/e2e.ts";
import { captureLogs } from "../support/logs.ts";

let e2e: E2eSetup;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(() => e2e.close());

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe("svc.score against the dev server", () => {
  it("sends queued scores that read back through Scores v3 with their subjects", async () => {
    const { traceId, spanId } = await startActiveObservation("scored", async (span) => {
      e2e.svc.score.trace({ otelSpan: span.otelSpan }, { name: "quality", value: 0.8, comment: "good" });
      e2e.svc.score.observation({ otelSpan: span.otelSpan }, { name: "verdict", value: "pass" });
      return { traceId: span.traceId, spanId: span.id };
    });
    e2e.svc.score.create({ traceId, name: "manual", value: 1, dataType: "BOOLEAN" });
    await e2e.flush();

    const { data } = await e2e.svc.api.scores.getMany({ traceId, fields: "details,subject" });

    const byName = Object.fromEntries(data.map((s) => [s.name, s]));
    expect(byName.quality).toMatchObject({ value: 0.8, comment: "good", subject: { kind: "trace", id: traceId } });
    expect(byName.verdict).toMatchObject({ value: "pass", subject: { kind: "observation", id: spanId, traceId } });
    expect(byName.manual).toMatchObject({ value: true, dataType: "BOOLEAN" });
  });

  it("sends more than one batch when more scores are queued than fit in one request", async () => {
    const traceId = unique("trace");
    for (let i = 0; i < 230; i++) e2e.svc.score.create({ traceId, name: "bulk", value: i });
    await e2e.svc.score.flush();

    const ids = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await e2e.svc.api.scores.getMany({ traceId, limit: 100, cursor });
      for (const s of res.data) ids.add(s.id);
      cursor = res.meta.cursor ?? undefined;
      if (!cursor) break;
    }

    expect(ids.size).toBe(230);
  });
});

describe("svc.score rejections by the dev server", () => {
  it("logs the server's rejection of a score only the server can judge, and the valid one reads back", async () => {
    const logs = captureLogs();
    const traceId = unique("trace");
    e2e.svc.score.create({ id: `${traceId}-ok`, traceId, name: "good", value: 1 });
    e2e.svc.score.create({ id: `${traceId}-bad`, traceId, name: "flag", value: 2, dataType: "BOOLEAN" });
    await e2e.svc.score.flush();

    const { data } = await e2e.svc.api.scores.getMany({ traceId });
    const line = logs.find((l) => l.message.includes("Svc rejected"));

    expect(data.map((s) => s.id)).toEqual([`${traceId}-ok`]);
    expect(line?.level).toBe("error");
    expect(line?.message).toMatch(/^\[Svc SDK\] Svc rejected 1 of 2 scores in batch: \[.*"id":".*-bad".*0 or 1/);
  });

  it("logs a batch the server rejects in full with the same line, and sends it only once", async () => {
    const logs = captureLogs();
    const traceId = unique("trace");
    e2e.svc.score.create({ traceId, name: "flag", value: 5, dataType: "BOOLEAN" });
    e2e.svc.score.create({ traceId, name: "note", value: "", dataType: "TEXT" });
    await e2e.svc.score.flush();

    const { data } = await e2e.svc.api.scores.getMany({ traceId });

    expect(data).toEqual([]);
    expect(logs.filter((l) => l.message.includes("Svc rejected"))).toEqual([
      { level: "error", message: expect.stringMatching(/^\[Svc SDK\] Svc rejected 2 of 2 scores in batch: \[/) },
    ]);
    expect(logs.filter((l) => l.message.includes("lost"))).toEqual([]);
  });
});

describe("svc.prompt against the dev server", () => {
  it("creates a text prompt, fetches and compiles it", async () => {
    const name = unique("greeting");
    await e2e.svc.prompt.create({ name, type: "text", prompt: "Hello {{who}}!", labels: ["production"] });

    const prompt = await e2e.svc.prompt.get(name, { type: "text" });

    expect(prompt.version).toBe(1);
    expect(prompt.compile({ who: "world" })).toBe("Hello world!");
  });

  it("creates a chat prompt and fills its placeholder", async () => {
    const name = unique("chat");
    await e2e.svc.prompt.create({
      name,
      type: "chat",
      prompt: [
        { role: "system", content: "You help {{user}}." },
        { type: "placeholder", name: "history" },
      ],
      labels: ["production"],
    });

    const prompt = await e2e.svc.prompt.get(name, { type: "chat" });

    expect(prompt.compile({ user: "Ada" }, { history: [{ role: "user", content: "hi" }] })).toEqual([
      { role: "system", content: "You help Ada." },
      { role: "user", content: "hi" },
    ]);
  });

  it("links a fetched prompt to the generation that uses it, and never a fallback", async () => {
    captureLogs(); // the fallback's fetch fails on purpose
    const name = unique("linked");
    await e2e.svc.prompt.create({ name, type: "text", prompt: "Say {{what}}", labels: ["production"] });
    await e2e.svc.prompt.create({ name, type: "text", prompt: "Say {{what}} twice", labels: ["production"] });
    const prompt = await e2e.svc.prompt.get(name, { type: "text" });
    const fallback = await e2e.svc.prompt.get(unique("missing"), { type: "text", fallback: "Say hi", maxRetries: 0 });

    const traceId = await startActiveObservation("prompted", async (root) => {
      startActiveObservation("with-prompt", (g) => g.update({ prompt, input: prompt.compile({ what: "hi" }) }), {
        asType: "generation",
      });
      startActiveObservation("with-fallback", (g) => g.update({ prompt: fallback, input: fallback.compile() }), {
        asType: "generation",
      });
      return root.traceId;
    });
    await e2e.flush();
    const observations = await e2e.observations(traceId);

    expect(fallback.isFallback).toBe(true);
    expect(byName(observations, "with-prompt")).toMatchObject({
      promptName: name,
      promptVersion: 2,
      input: "Say hi twice",
    });
    expect(byName(observations, "with-fallback").promptName ?? null).toBeNull();
  });

  it("moves a label with update and serves the newly labelled version", async () => {
    const name = unique("moving");
    await e2e.svc.prompt.create({ name, type: "text", prompt: "one", labels: ["production"] });
    await e2e.svc.prompt.create({ name, type: "text", prompt: "two" });

    await e2e.svc.prompt.update({ name, version: 2, newLabels: ["production"] });
    const prompt = await e2e.svc.prompt.get(name, { type: "text", cacheTtlSeconds: 0 });

    expect(prompt).toMatchObject({ version: 2, prompt: "two" });
  });
});

describe("svc.dataset against the dev server", () => {
  it("creates items and gets the dataset with every item across pages", async () => {
    const name = unique("dataset");
    await e2e.svc.api.datasets.create({ name });
    for (let i = 0; i < 7; i++) {
      await e2e.svc.dataset.createItem({ datasetName: name, input: { n: i }, expectedOutput: i * i });
    }

    const dataset = await e2e.svc.dataset.get(name, { fetchItemsPageSize: 3 });

    expect(dataset.name).toBe(name);
    expect(dataset.items.map((item) => (item.input as { n: number }).n).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(dataset.items.every((item) => item.expectedOutput === (item.input as { n: number }).n ** 2)).toBe(true);
  });
});

describe("svc.media against the dev server", () => {
  it("uploads media placed in a dataset item; the raw item holds its reference string, which resolves to the content", async () => {
    const name = unique("media-dataset");
    await e2e.svc.api.datasets.create({ name });
    const pdf = Buffer.from(`%PDF-1.4 ${randomUUID()}`);
    const dataUri = `data:application/pdf;base64,${pdf.toString("base64")}`;

    const item = await e2e.svc.dataset.createItem({
      datasetName: name,
      input: { document: new SvcMedia({ base64DataUri: dataUri }), question: "summary?" },
    });
    const [raw] = (await e2e.svc.api.datasetItems.list({ datasetName: name })).data;
    const stored = raw?.input as { document: string; question: string };
    const resolved = await e2e.svc.media.resolveReferences({ obj: stored, resolveWith: "base64DataUri" });

    expect(raw?.id).toBe(item.id);
    expect(stored.document).toMatch(/^@@@svcMedia:type=application\/pdf\|id=[^|]+\|source=base64_data_uri@@@$/);
    expect(resolved).toEqual({ document: dataUri, question: "summary?" });
  });

  it("uploads an SvcMedia placed in traced input and metadata, which resolves back to its content", async () => {
    const wav = Buffer.from(`RIFF-${randomUUID()}`);
    const media = new SvcMedia({ source: "bytes", contentBytes: wav, contentType: "audio/wav" });
    const span = startObservation("media-span", {
      input: { operation: "transcribe", audio: media },
      metadata: { context: { nested: media } },
    });
    span.end();
    await e2e.flush();

    const observation = byName(await e2e.observations(span.traceId), "media-span");
    const reference = /@@@svcMedia:type=audio\/wav\|id=[^|]+\|source=base64_data_uri@@@/;
    expect(JSON.stringify(observation.input)).toMatch(reference);
    expect(JSON.stringify(observation.metadata)).toMatch(reference);
    expect(JSON.stringify(observation)).not.toContain(wav.toString("base64"));
    const resolved = await e2e.svc.media.resolveReferences({ obj: observation.input, resolveWith: "base64DataUri" });
    expect(JSON.stringify(resolved)).toContain(media.base64DataUri);
  });

  it("dataset.get puts an SvcMediaReference at each media's place, which downloads its own content", async () => {
    const name = unique("media-paths");
    await e2e.svc.api.datasets.create({ name });
    const media = (tag: string) =>
      new SvcMedia({ source: "bytes", contentBytes: Buffer.from(`media-${tag}-${name}`), contentType: "image/png" });
    await e2e.svc.dataset.createItem({
      datasetName: name,
      input: {
        question: "compare",
        image: media("image"),
        gallery: [media("g0"), media("g1")],
        grid: [[media("grid")]],
      },
      expectedOutput: { reference: media("reference") },
      metadata: { thumbnail: media("thumbnail") },
    });

    const item = (await e2e.svc.dataset.get(name)).items[0]!;
    const input = item.input as { question: string; image: unknown; gallery: unknown[]; grid: unknown[][] };
    const placed: [unknown, string][] = [
      [input.image, "image"],
      [input.gallery[0], "g0"],
      [input.gallery[1], "g1"],
      [input.grid[0]?.[0], "grid"],
      [(item.expectedOutput as { reference: unknown }).reference, "reference"],
      [(item.metadata as { thumbnail: unknown }).thumbnail, "thumbnail"],
    ];

    expect(input.question).toBe("compare");
    for (const [value, tag] of placed) {
      expect(value, tag).toBeInstanceOf(SvcMediaReference);
      const reference = value as SvcMediaReference;
      expect(reference.contentType).toBe("image/png");
      expect(reference.isUrlExpired()).toBe(false);
      expect(Buffer.from(await reference.fetchBytes()).toString(), tag).toBe(`media-${tag}-${name}`);
    }
  });

  it("stores an item read with dataset.get again without losing the link to its media", async () => {
    const name = unique("media-copy");
    await e2e.svc.api.datasets.create({ name });
    await e2e.svc.api.datasets.create({ name: `${name}-copy` });
    const bytes = Buffer.from(`copy-${name}`);
    await e2e.svc.dataset.createItem({
      datasetName: name,
      input: { image: new SvcMedia({ contentBytes: bytes, contentType: "image/png" }) },
    });
    const source = (await e2e.svc.dataset.get(name)).items[0]!;

    await e2e.svc.dataset.createItem({ datasetName: `${name}-copy`, input: source.input });

    const raw = (await e2e.svc.api.datasetItems.list({ datasetName: `${name}-copy` })).data[0]!;
    const copy = (await e2e.svc.dataset.get(`${name}-copy`)).items[0]!;
    const sourceImage = (source.input as { image: SvcMediaReference }).image;
    const copyImage = (copy.input as { image: SvcMediaReference }).image;
    expect((raw.input as { image: string }).image).toBe(sourceImage.referenceString);
    expect(copyImage).toBeInstanceOf(SvcMediaReference);
    expect(copyImage.mediaId).toBe(sourceImage.mediaId);
  });
});

describe("SvcBrowserClient against the dev server", () => {
  it("sends a score with the public key only and it reads back", async () => {
    const traceId = unique("trace");
    const browser = new SvcBrowserClient({ publicKey: e2e.server.publicKey, baseUrl: e2e.server.url });

    const sent = await browser.score({ name: "thumbs-up", value: 1, traceId });
    const { data } = await e2e.svc.api.scores.getMany({ traceId });

    expect(sent?.id).toEqual(expect.any(String));
    expect(data).toEqual([expect.objectContaining({ id: sent?.id, name: "thumbs-up", value: 1 })]);
  });
});
