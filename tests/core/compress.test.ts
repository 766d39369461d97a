import { gunzipSync } from "node:zlib";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { chooseGzip } from "../../packages/core/src/transport/compress.ts";
import { startServer } from "../support/http-server.ts";
import { exportedSpans, otlpRequests } from "../support/otel.ts";

const text = JSON.stringify({ resourceSpans: [{ name: "x".repeat(200) }] });
const body = new TextEncoder().encode(text);
/** The text in three pieces, as the encoder hands it over. */
const pieces = () => [text.slice(0, 10), text.slice(10, 100), text.slice(100)][Symbol.iterator]();
/** A Node-compatible process object that could load node:zlib. */
const nodeProcess = { versions: { node: "22.12.0" }, getBuiltinModule: process.getBuiltinModule };

describe("choice of gzip by runtime", () => {
  it("gzips with node:zlib on Node.js", async () => {
    const gzip = chooseGzip({ process: nodeProcess });

    const out = await gzip!(pieces());

    expect(Buffer.from(gunzipSync(out)).equals(Buffer.from(body))).toBe(true);
  });

  it("falls back to CompressionStream on a server runtime that cannot load node:zlib", async () => {
    const gzip = chooseGzip({ process: { versions: { node: "22.0.0" } }, CompressionStream });

    const out = await gzip!(pieces());

    expect(Buffer.from(out.subarray(0, 2)).equals(Buffer.from([0x1f, 0x8b]))).toBe(true);
    expect(Buffer.from(gunzipSync(out)).equals(Buffer.from(body))).toBe(true);
  });

  it("takes the next piece from node:zlib only when it wants more, and passes on an encoding failure", async () => {
    const gzip = chooseGzip({ process: nodeProcess });
    const big = "y".repeat(64 * 1024);
    let taken = 0;
    function* lazy() {
      for (let i = 0; i < 40; i++) {
        taken++;
        yield big;
      }
    }
    const out = gzip!(lazy());
    expect(taken).toBeLessThan(40);
    expect(gunzipSync(await out).length).toBe(40 * big.length);

    function* failing() {
      yield "{";
      throw new Error("cannot encode");
    }
    await expect(gzip!(failing())).rejects.toThrow("cannot encode");
    await expect(
      chooseGzip({ process: { versions: { node: "22.0.0" } }, CompressionStream })!(failing()),
    ).rejects.toThrow("cannot encode");
  });

  it("sends uncompressed on a server runtime with neither node:zlib nor CompressionStream", () => {
    expect(chooseGzip({ process: { versions: { node: "22.0.0" } } })).toBeNull();
  });

  it("sends uncompressed in a browser, even though it has CompressionStream", () => {
    expect(chooseGzip({ navigator: { userAgent: "Mozilla/5.0" }, CompressionStream })).toBeNull();
  });

  it("sends uncompressed in the Vercel Edge runtime", () => {
    expect(chooseGzip({ EdgeRuntime: "edge-runtime", process: nodeProcess, CompressionStream })).toBeNull();
  });

  it("sends uncompressed in Cloudflare Workers, even with Node.js compatibility on", () => {
    const runtime = { navigator: { userAgent: "Cloudflare-Workers" }, process: nodeProcess, CompressionStream };
    expect(chooseGzip(runtime)).toBeNull();
  });
});

it("exports uncompressed bodies in an edge runtime although compression is gzip", async () => {
  vi.stubGlobal("EdgeRuntime", "edge-runtime");
  vi.resetModules();
  onTestFinished(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });
  const { SvcSpanProcessor } = await import("@svc/otel");
  const server = await startServer();
  onTestFinished(server.close);
  const processor = new SvcSpanProcessor(
    { baseUrl: server.url, publicKey: "pk", secretKey: "sk", compression: "gzip" },
    { SVC_OTEL_COMPRESSION: "gzip" },
  );
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());

  provider.getTracer("svc-sdk").startSpan("at-the-edge").end();
  await processor.forceFlush();

  const [request] = otlpRequests(server);
  expect(request?.headers["content-encoding"]).toBeUndefined();
  expect(request?.rawBody.subarray(0, 1).toString()).toBe("{");
  expect(exportedSpans(server).map((s) => s.name)).toEqual(["at-the-edge"]);
});
