import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sink, startSink } from "../../bench/sink.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const span = (n: number) => ({ traceId: TRACE, spanId: n.toString(16).padStart(16, "0"), name: `s${n}` });
const otlp = (spans: object[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

function post(sink: Sink, path: string, body: Buffer | string, headers: Record<string, string> = {}) {
  return fetch(`${sink.url}${path}`, {
    method: "POST",
    body: typeof body === "string" ? body : new Uint8Array(body),
    headers: { "content-type": "application/json", ...headers },
  });
}

// Protobuf writer for the three nested OTLP messages the sink reads.
function field(num: number, bytes: Buffer): Buffer {
  const header: number[] = [(num << 3) | 2];
  let len = bytes.length;
  while (len >= 0x80) {
    header.push((len & 0x7f) | 0x80);
    len >>>= 7;
  }
  header.push(len);
  return Buffer.concat([Buffer.from(header), bytes]);
}

describe("bench sink", () => {
  let sink: Sink;
  beforeEach(async () => {
    sink = await startSink();
  });
  afterEach(async () => {
    await sink.close();
  });

  it("counts spans of a gzipped OTLP/JSON request and the bytes as sent", async () => {
    const body = gzipSync(JSON.stringify(otlp([span(1), span(2), span(3)])));
    const res = await post(sink, "/api/public/otel/v1/traces", body, { "content-encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(sink.stats()).toMatchObject({ spans: 3, uniqueSpans: 3, spanRequests: 1, gzipRequests: 1 });
    expect(sink.stats().spanBytes).toBe(body.length);
  });

  it("counts a span sent twice once and reports the duplicate", async () => {
    await post(sink, "/api/public/otel/v1/traces", JSON.stringify(otlp([span(1)])));
    await post(sink, "/api/public/otel/v1/traces", JSON.stringify(otlp([span(1), span(2)])));
    expect(sink.stats()).toMatchObject({ spans: 3, uniqueSpans: 2, duplicateSpans: 1 });
  });

  it("counts spans of an OTLP/protobuf request", async () => {
    const protoSpan = (n: number) =>
      Buffer.concat([
        field(1, Buffer.from(TRACE, "hex")),
        field(2, Buffer.from(span(n).spanId, "hex")),
        field(5, Buffer.from(`s${n}`)),
      ]);
    const scope = field(2, Buffer.concat([field(2, protoSpan(1)), field(2, protoSpan(2))]));
    const body = field(1, scope);
    const res = await post(sink, "/api/public/otel/v1/traces", body, { "content-type": "application/x-protobuf" });
    expect(res.status).toBe(200);
    expect(sink.stats()).toMatchObject({ spans: 2, uniqueSpans: 2 });
  });

  it("answers traces requests before decoding them and records a malformed one when counting", async () => {
    const res = await post(sink, "/api/public/otel/v1/traces", JSON.stringify(otlp([{ name: "x" }])));
    expect(res.status).toBe(200);
    const gzipped = gzipSync(JSON.stringify(otlp([span(1)])));
    await post(sink, "/api/public/otel/v1/traces", gzipped, { "content-encoding": "gzip" });
    const viaHttp = (await (await fetch(`${sink.url}/__stats`)).json()) as { spans: number; malformed: string[] };
    expect(viaHttp.spans).toBe(1);
    expect(viaHttp.malformed).toEqual([expect.stringContaining("span without a trace id")]);
    expect(sink.stats()).toMatchObject({ spans: 1, spanRequests: 2, gzipRequests: 1 });
  });

  it("with eager decoding, records a span without ids as malformed and answers 400", async () => {
    const eager = await startSink({ deferDecoding: false });
    try {
      const res = await post(eager, "/api/public/otel/v1/traces", JSON.stringify(otlp([{ name: "x" }])));
      expect(res.status).toBe(400);
      const gzipped = gzipSync(JSON.stringify(otlp([span(1), span(2)])));
      expect((await post(eager, "/api/public/otel/v1/traces", gzipped, { "content-encoding": "gzip" })).status).toBe(
        200,
      );
      expect(eager.stats()).toMatchObject({ spans: 2, spanRequests: 2, gzipRequests: 1 });
      expect(eager.stats().malformed).toHaveLength(1);
    } finally {
      await eager.close();
    }
  });

  it("counts scores sent as an array and as score-create ingestion events", async () => {
    const scores = [
      { id: "a", name: "q", value: 1, traceId: TRACE },
      { id: "b", name: "q", value: "good", traceId: TRACE },
    ];
    expect((await post(sink, "/api/public/scores", JSON.stringify(scores))).status).toBe(200);
    const batch = [
      { id: "e1", type: "score-create", timestamp: "2026-01-01T00:00:00Z", body: { id: "c", name: "q", value: 0 } },
    ];
    const res = await post(sink, "/api/public/ingestion", JSON.stringify({ batch }));
    expect(res.status).toBe(207);
    expect(await res.json()).toEqual({ successes: [{ id: "e1", status: 201 }], errors: [] });
    expect(sink.stats()).toMatchObject({ scores: 3, uniqueScores: 3, scoreRequests: 2 });
  });

  it("records a score batch over 100 items as malformed", async () => {
    const scores = Array.from({ length: 101 }, (_, i) => ({ name: "q", value: i }));
    expect((await post(sink, "/api/public/scores", JSON.stringify(scores))).status).toBe(400);
    expect(sink.stats().malformed[0]).toContain("batch of 101");
  });

  it("starts counting from zero after a reset", async () => {
    await post(sink, "/api/public/otel/v1/traces", JSON.stringify(otlp([span(1)])));
    sink.reset();
    expect(sink.stats()).toMatchObject({ spans: 0, uniqueSpans: 0, spanRequests: 0, malformed: [] });
  });
});
