import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { LogLevel } from "@svc/tracing";
import { describe, expect, it, onTestFinished } from "vitest";
import { faultServer, RETRY_NOW, SILENT, timed } from "../support/faults.ts";
import type { Reply, ReplyFn, SeenRequest, TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";
import { attributesOf, exportedSpans } from "../support/otel.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001", "hex");
const DATA_URI = `data:image/png;base64,${PNG.toString("base64")}`;
const MARGIN_MS = 3_000;

/** Media routes and a bucket; `bucket` and `register` script the faults of the upload and of the registration. */
async function mediaServer({
  bucket,
  register,
}: {
  bucket?: ReplyFn;
  register?: (req: SeenRequest) => Reply | undefined;
} = {}): Promise<TestServer> {
  let server: TestServer | undefined;
  server = await faultServer(async (req) => {
    if (req.method === "POST" && req.path === "/api/public/media") {
      const answer = register?.(req);
      if (answer) return answer;
      const { sha256Hash } = req.json as { sha256Hash: string };
      const mediaId = sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22);
      return { json: { mediaId, uploadUrl: `${server?.url}/bucket/${mediaId}` } };
    }
    if (req.path.startsWith("/bucket/")) return bucket ? bucket(req) : { status: 200 };
    return { status: 200, json: {} };
  });
  return server;
}

function traceWithMedia(server: TestServer, params: SvcSpanProcessorParams = {}) {
  const processor = new SvcSpanProcessor(
    { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test", flushTimeout: 2, timeout: 1, ...params },
    {},
  );
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  provider
    .getTracer("svc-sdk")
    .startSpan("vision", { attributes: { "svc.observation.input": DATA_URI } })
    .end();
  return processor;
}

const puts = (server: TestServer) => server.seen.filter((r) => r.method === "PUT");
/** Answers the first calls with `steps`, then with `then`. */
function first<T extends Reply | undefined>(steps: Reply[], then: T): () => Reply | T {
  let i = 0;
  return () => steps[i++] ?? then;
}

describe("media uploads through faults", () => {
  it("retries a registration refused with 503 and an upload whose connection was reset, and uploads the media", async () => {
    const server = await mediaServer({
      register: first([{ status: 503, json: {}, headers: RETRY_NOW }], undefined),
      bucket: first([{ destroy: true }], { status: 200 }),
    });
    const processor = traceWithMedia(server, { flushTimeout: 10 });

    await processor.forceFlush();

    expect(puts(server).filter((r) => r.rawBody.equals(PNG)).length).toBeGreaterThanOrEqual(1);
    const patch = server.seen.find((r) => r.method === "PATCH");
    expect(patch?.json).toMatchObject({ uploadHttpStatus: 200 });
    expect(String(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"])).toMatch(/^@@@svcMedia:/);
  });

  it("bounds forceFlush() by flushTimeout when the bucket never answers, and still exports the span with its reference", async () => {
    captureLogs(LogLevel.INFO);
    const server = await mediaServer({ bucket: SILENT });
    const processor = traceWithMedia(server, { timeout: 30, flushTimeout: 1 });

    const { ms } = await timed(() => processor.forceFlush());

    expect(ms).toBeLessThan(1_000 + MARGIN_MS);
    expect(exportedSpans(server)).toHaveLength(1);
    expect(String(attributesOf(exportedSpans(server)[0]!)["svc.observation.input"])).toMatch(/^@@@svcMedia:/);
  });

  it("follows a 307 of the bucket to another path", async () => {
    const server = await mediaServer({
      bucket: (req: SeenRequest) =>
        req.path.startsWith("/bucket/moved/")
          ? { status: 200 }
          : { status: 307, headers: { location: `/bucket/moved/x` } },
    });
    const processor = traceWithMedia(server);

    await processor.forceFlush();

    expect(puts(server).map((r) => r.path)).toEqual([expect.stringMatching(/^\/bucket\/[\w-]+$/), "/bucket/moved/x"]);
    expect(puts(server)[1]?.rawBody.equals(PNG)).toBe(true);
  });

  it("logs an upload URL that is not valid once, and keeps the reference in the exported span", async () => {
    const logs = captureLogs(LogLevel.INFO);
    const server = await mediaServer({
      register: (req) => {
        const { sha256Hash } = req.json as { sha256Hash: string };
        return {
          json: { mediaId: sha256Hash.replaceAll("+", "-").replaceAll("/", "_").slice(0, 22), uploadUrl: "::bad" },
        };
      },
    });
    const processor = traceWithMedia(server);

    await processor.forceFlush();

    expect(logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      expect.stringMatching(
        /media upload failed; the span keeps its media reference without content .*"::bad" is not a valid URL/,
      ),
    ]);
    expect(exportedSpans(server)).toHaveLength(1);
  });
});

describe("media.resolveReferences through faults", () => {
  it("resolves a reference after a 503 with Retry-After, and leaves it in place when the server never answers", async () => {
    captureLogs(LogLevel.INFO);
    let calls = 0;
    const server = await faultServer((req) => {
      if (req.path.startsWith("/api/public/media/")) {
        if (calls++ === 0) return { status: 503, json: {}, headers: RETRY_NOW };
        return {
          json: { mediaId: "m1", contentType: "image/png", contentLength: PNG.length, url: `${server.url}/files/m1` },
        };
      }
      if (req.path === "/files/m1") return { text: "png-bytes" };
      return SILENT(req);
    });
    const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test", timeout: 1 });
    onTestFinished(() => svc.shutdown());
    const reference = "@@@svcMedia:type=image/png|id=m1|source=bytes@@@";

    const resolved = await svc.media.resolveReferences({ obj: { image: reference }, resolveWith: "base64DataUri" });
    server.reply(SILENT);
    const silent = new SvcClient({ baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test", timeout: 0.5 });
    const kept = await timed(() =>
      silent.media.resolveReferences({
        obj: { image: "@@@svcMedia:type=image/png|id=m2|source=bytes@@@" },
        resolveWith: "base64DataUri",
      }),
    );

    expect(resolved.image).toBe(`data:image/png;base64,${Buffer.from("png-bytes").toString("base64")}`);
    expect(kept.value.image).toBe("@@@svcMedia:type=image/png|id=m2|source=bytes@@@");
    // Three attempts of 0.5 s, with backoff between them (about 1 s, then 2 s).
    expect(kept.ms).toBeLessThan(3 * 500 + 3_750 + MARGIN_MS);
  });
});
