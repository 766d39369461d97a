import { createHash } from "node:crypto";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { type ReplyFn, type SeenRequest, startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans, svcProvider, waitForOtlpRequests } from "../support/otel.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001", "hex");
const DATA_URI = `data:image/png;base64,${PNG.toString("base64")}`;
const SHA256 = createHash("sha256").update(PNG).digest("base64");
const MEDIA_ID = SHA256.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22);
const REFERENCE = `@@@svcMedia:type=image/png|id=${MEDIA_ID}|source=base64_data_uri@@@`;

/** A server that plays the media routes and the upload bucket, deriving the media id from the hash as the real server does. */
async function mediaServer(options: { alreadyUploaded?: boolean; put?: ReplyFn } = {}) {
  let server: TestServer | undefined;
  server = await startServer(async (req) => {
    if (req.method === "POST" && req.path === "/api/public/media") {
      const { sha256Hash } = req.json as { sha256Hash: string };
      const mediaId = sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22);
      return { json: { mediaId, uploadUrl: options.alreadyUploaded ? null : `${server?.url}/bucket/${mediaId}` } };
    }
    if (req.method === "PUT" && req.path.startsWith("/bucket/"))
      return options.put ? options.put(req) : { status: 200 };
    return { status: 200, json: {} };
  });
  onTestFinished(server.close);
  return server;
}

const find = (server: TestServer, method: string, prefix: string): SeenRequest[] =>
  server.seen.filter((r) => r.method === method && r.path.startsWith(prefix));

describe("media in span data", () => {
  it("uploads a data URI from the input and exports a media reference in its place", async () => {
    const server = await mediaServer();
    const { svc, processor } = svcProvider(server);

    const span = svc.startSpan("vision", {
      attributes: { "svc.observation.input": JSON.stringify({ image: DATA_URI, text: "what is this?" }) },
    });
    span.end();
    await processor.forceFlush();

    const input = String(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"]);
    expect(JSON.parse(input)).toEqual({ image: REFERENCE, text: "what is this?" });
    const [create] = find(server, "POST", "/api/public/media");
    expect(create?.json).toEqual({
      traceId: span.spanContext().traceId,
      observationId: span.spanContext().spanId,
      contentType: "image/png",
      contentLength: PNG.length,
      sha256Hash: SHA256,
      field: "input",
    });
    expect(create?.headers.authorization).toBe(`Basic ${Buffer.from("pk-test:sk-test").toString("base64")}`);
    const [put] = find(server, "PUT", "/bucket/");
    expect(put?.path).toBe(`/bucket/${MEDIA_ID}`);
    expect(put?.rawBody.equals(PNG)).toBe(true);
    expect(put?.headers).toMatchObject({ "content-type": "image/png", "x-amz-checksum-sha256": SHA256 });
    const [patch] = find(server, "PATCH", `/api/public/media/${MEDIA_ID}`);
    expect(patch?.json).toMatchObject({ uploadHttpStatus: 200, uploadedAt: expect.any(String) });
  });

  it("names the field output or metadata after the attribute the media was found in", async () => {
    const server = await mediaServer({ alreadyUploaded: true });
    const { svc, processor } = svcProvider(server);

    svc.startSpan("out", { attributes: { "svc.observation.output": DATA_URI } }).end();
    svc.startSpan("meta", { attributes: { "svc.observation.metadata.file": DATA_URI } }).end();
    await processor.forceFlush();

    const fields = find(server, "POST", "/api/public/media").map((r) => (r.json as { field: string }).field);
    expect(fields.sort()).toEqual(["metadata", "output"]);
    const spans = Object.fromEntries(exportedSpans(server).map((s) => [s.name, attributesOf(s)]));
    expect(spans.out?.["svc.observation.output"]).toBe(REFERENCE);
    expect(spans.meta?.["svc.observation.metadata.file"]).toBe(REFERENCE);
  });

  it("names the field metadata for a metadata key that contains input or output, and trace input input", async () => {
    const server = await mediaServer({ alreadyUploaded: true });
    const { svc, processor } = svcProvider(server);

    svc.startSpan("user-input", { attributes: { "svc.observation.metadata.user_input": DATA_URI } }).end();
    svc.startSpan("outputs", { attributes: { "svc.trace.metadata.outputs": DATA_URI } }).end();
    svc.startSpan("trace-input", { attributes: { "svc.trace.input": DATA_URI } }).end();
    await processor.forceFlush();

    const fields = find(server, "POST", "/api/public/media").map((r) => (r.json as { field: string }).field);
    expect(fields.sort()).toEqual(["input", "metadata", "metadata"]);
  });

  it("skips the PUT when the server already has the media", async () => {
    const server = await mediaServer({ alreadyUploaded: true });
    const { svc, processor } = svcProvider(server);

    svc.startSpan("vision", { attributes: { "svc.observation.input": DATA_URI } }).end();
    await processor.forceFlush();

    expect(find(server, "POST", "/api/public/media")).toHaveLength(1);
    expect(find(server, "PUT", "/bucket/")).toHaveLength(0);
    expect(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"]).toBe(REFERENCE);
  });

  it("exports the span without waiting for the upload, and forceFlush waits for both", async () => {
    let release!: () => void;
    const bucket = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await mediaServer({
      put: async () => {
        await bucket;
        return { status: 200 };
      },
    });
    const { svc, processor } = svcProvider(server, { exportMode: "immediate" });

    svc.startSpan("vision", { attributes: { "svc.observation.input": DATA_URI } }).end();
    await waitForOtlpRequests(server, 1);
    let flushed = false;
    const flush = processor.forceFlush().then(() => {
      flushed = true;
    });
    await vi.waitFor(() => expect(find(server, "PUT", "/bucket/")).toHaveLength(1), { timeout: 5000, interval: 5 });
    expect(flushed).toBe(false);
    release();
    await flush;

    expect(find(server, "PATCH", "/api/public/media/")).toHaveLength(1);
  });

  it("keeps at most 8 media uploads in flight and uploads the rest as slots free up", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const server = await startServer(async (req) => {
      if (req.method === "POST" && req.path === "/api/public/media") {
        await gate;
        const { sha256Hash } = req.json as { sha256Hash: string };
        return {
          json: { mediaId: sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22), uploadUrl: null },
        };
      }
      return { status: 200, json: {} };
    });
    onTestFinished(server.close);
    const logs = captureLogs();
    const { svc, processor } = svcProvider(server, { exportMode: "immediate" });
    onTestFinished(() => open()); // runs before the provider's shutdown, which waits for the uploads

    for (let i = 0; i < 12; i++) {
      const image = Buffer.concat([PNG, Buffer.from([i])]).toString("base64");
      svc.startSpan(`img-${i}`, { attributes: { "svc.observation.input": `data:image/png;base64,${image}` } }).end();
    }
    await waitForOtlpRequests(server, 1);
    await vi.waitFor(() => expect(find(server, "POST", "/api/public/media").length).toBeGreaterThanOrEqual(8), {
      timeout: 5000,
      interval: 5,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(find(server, "POST", "/api/public/media")).toHaveLength(8);
    open();
    await processor.forceFlush();

    expect(find(server, "POST", "/api/public/media")).toHaveLength(12);
    expect(logs.filter((l) => l.level === "error")).toEqual([]);
  });

  it("leaves data URIs untouched when media upload is turned off", async () => {
    const server = await mediaServer();
    const { svc, processor } = svcProvider(server, {}, { SVC_MEDIA_UPLOAD_ENABLED: "false" });

    svc.startSpan("vision", { attributes: { "svc.observation.input": DATA_URI } }).end();
    await processor.forceFlush();

    expect(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"]).toBe(DATA_URI);
    expect(find(server, "POST", "/api/public/media")).toHaveLength(0);
  });

  it("still exports the span when the media route fails, and logs the failed upload", async () => {
    const logs = captureLogs();
    const server = await startServer((req) =>
      req.path === "/api/public/media" ? { status: 500, json: { message: "down" } } : { status: 200, json: {} },
    );
    onTestFinished(server.close);
    const { svc, processor } = svcProvider(server);

    svc.startSpan("vision", { attributes: { "svc.observation.input": DATA_URI } }).end();
    await processor.forceFlush();

    expect(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"]).toBe(REFERENCE);
    expect(logs.some((l) => l.level === "error" && l.message.includes("media upload failed"))).toBe(true);
  });
});
