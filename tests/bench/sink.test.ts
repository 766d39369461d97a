import { setTimeout as sleep } from "node:timers/promises";
import { gzipSync, zstdCompressSync } from "node:zlib";
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

  it("takes OTLP at /v1/traces, as Phoenix does", async () => {
    const res = await post(sink, "/v1/traces", JSON.stringify(otlp([span(1), span(2)])));
    expect(res.status).toBe(200);
    expect(sink.stats()).toMatchObject({ spans: 2, uniqueSpans: 2, spanRequests: 1 });
  });

  it("starts counting from zero after a reset", async () => {
    await post(sink, "/api/public/otel/v1/traces", JSON.stringify(otlp([span(1)])));
    sink.reset();
    expect(sink.stats()).toMatchObject({ spans: 0, uniqueSpans: 0, spanRequests: 0, malformed: [] });
  });
});

// LangSmith's ingestion routes, with bodies written as its JS SDK writes them.
const RUN = (n: number) => `01a21091-726c-7000-8000-${n.toString(16).padStart(12, "0")}`;
const TRACE_RUN = RUN(0);
const BOUNDARY = "----LangSmithFormBoundarybench";
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

interface FormPart {
  name: string;
  value: unknown;
  /** The byte length the part's content type declares, when not the true one. */
  length?: number;
}

function multipart(parts: FormPart[]): Buffer {
  const text = parts.map(({ name, value, length }) => {
    const data = JSON.stringify(value);
    const declared = length ?? Buffer.byteLength(data);
    return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json; length=${declared}\r\n\r\n${data}\r\n`;
  });
  return Buffer.from(`${text.join("")}--${BOUNDARY}--\r\n`);
}

function runBody(n: number, fields: Record<string, unknown>): Record<string, unknown> {
  return { id: RUN(n), trace_id: TRACE_RUN, dotted_order: `20261125T000000000000Z${TRACE_RUN}`, ...fields };
}

const created = (n: number): FormPart[] => [
  { name: `post.${RUN(n)}`, value: runBody(n, { name: "llm", run_type: "llm", start_time: "2026-11-25T00:00:00Z" }) },
  { name: `post.${RUN(n)}.inputs`, value: { question: n } },
  { name: `post.${RUN(n)}.extra`, value: { metadata: { tenant: "acme" } } },
];
const ended = (n: number): FormPart[] => [
  { name: `patch.${RUN(n)}`, value: runBody(n, { end_time: "2026-11-25T00:00:01Z" }) },
  { name: `patch.${RUN(n)}.outputs`, value: { answer: n } },
];
const feedback = (n: number): FormPart => ({
  name: `feedback.${RUN(100 + n)}`,
  value: { id: RUN(100 + n), run_id: TRACE_RUN, trace_id: TRACE_RUN, key: "quality", score: n / 10 },
});

describe("bench sink, LangSmith routes", () => {
  let sink: Sink;
  beforeEach(async () => {
    sink = await startSink();
  });
  afterEach(async () => {
    await sink.close();
  });

  it("describes itself at GET /info with the compression it offers", async () => {
    const info = (await (await fetch(`${sink.url}/info`)).json()) as Record<string, Record<string, unknown>>;
    expect(info.batch_ingest_config).toMatchObject({ use_multipart_endpoint: true, size_limit: 100 });
    expect(info.instance_flags).toMatchObject({ zstd_compression_enabled: true, gzip_body_enabled: true });
    const gzipOnly = await startSink({ langsmithCompression: "gzip" });
    try {
      const flags = ((await (await fetch(`${gzipOnly.url}/info`)).json()) as { instance_flags: object }).instance_flags;
      expect(flags).toEqual({ zstd_compression_enabled: false, gzip_body_enabled: true });
    } finally {
      await gzipOnly.close();
    }
  });

  it("counts a run once, when both its creation and its end have arrived, across zstd, gzip and plain bodies", async () => {
    const first = zstdCompressSync(multipart([...created(1), ...created(2)]));
    const second = gzipSync(multipart(ended(1)));
    const third = multipart(ended(2));
    expect(
      (await post(sink, "/runs/multipart", first, { "content-type": MULTIPART, "content-encoding": "zstd" })).status,
    ).toBe(202);
    await post(sink, "/runs/multipart", second, { "content-type": MULTIPART, "content-encoding": "gzip" });
    expect(sink.stats()).toMatchObject({ spans: 2, uniqueSpans: 1, runOperations: 3, incompleteRuns: 1 });

    await post(sink, "/runs/multipart", third, { "content-type": MULTIPART });

    expect(sink.stats()).toMatchObject({
      spans: 2,
      uniqueSpans: 2,
      duplicateSpans: 0,
      runOperations: 4,
      incompleteRuns: 0,
      spanRequests: 3,
      spanBytes: first.length + second.length + third.length,
      malformed: [],
    });
  });

  it("counts a run created with its end in a JSON batch, and a second creation of it as a duplicate", async () => {
    const batch = JSON.stringify({ post: [runBody(1, { name: "agent", run_type: "chain", end_time: "t" })] });
    await post(sink, "/runs/batch", batch);
    await post(sink, "/runs/batch", gzipSync(batch), { "content-encoding": "gzip" });
    expect(sink.stats()).toMatchObject({ spans: 2, uniqueSpans: 1, duplicateSpans: 1, spanRequests: 2 });
  });

  it("counts feedback parts and POST /feedback bodies as scores", async () => {
    const body = zstdCompressSync(multipart([feedback(1), feedback(2)]));
    await post(sink, "/runs/multipart", body, { "content-type": MULTIPART, "content-encoding": "zstd" });
    await post(sink, "/feedback", JSON.stringify(feedback(3).value));
    expect(sink.stats()).toMatchObject({
      scores: 3,
      uniqueScores: 3,
      scoreRequests: 2,
      spanRequests: 0,
      scoreBytes: body.length + JSON.stringify(feedback(3).value).length,
    });
  });

  it.each([
    ["a part whose declared length is wrong", [{ ...created(1)[0]!, length: 3 }], "declares 3 bytes"],
    ["a field before its run", [created(1)[1]!, created(1)[0]!], "before its run's post"],
    ["a run without a trace id", [{ name: `post.${RUN(1)}`, value: { id: RUN(1), name: "x" } }], "without a trace id"],
    ["an unknown part", [{ name: `put.${RUN(1)}`, value: {} }], "unexpected part name"],
  ])("records a multipart body with %s as malformed", async (_, parts, message) => {
    await post(sink, "/runs/multipart", multipart(parts as FormPart[]), { "content-type": MULTIPART });
    const stats = sink.stats();
    expect(stats.malformed).toEqual([expect.stringContaining(message)]);
    expect(stats).toMatchObject({ spanRequests: 1, uniqueSpans: 0 });
  });

  it("records a body that does not decompress as malformed", async () => {
    await post(sink, "/runs/multipart", multipart(created(1)), {
      "content-type": MULTIPART,
      "content-encoding": "zstd",
    });
    expect(sink.stats().malformed).toHaveLength(1);
  });
});

describe("bench sink answering slowly", () => {
  it("holds a traces answer for answerDelayMs after counting the request", async () => {
    const slow = await startSink({ answerDelayMs: 60_000 });
    const answer = post(slow, "/api/public/otel/v1/traces", JSON.stringify(otlp([span(1)]))).then(
      () => "answered",
      () => "closed",
    );
    for (let i = 0; i < 500 && slow.stats().spanRequests === 0; i++) await sleep(10);
    const state = await Promise.race([answer, sleep(50, "pending")]);
    expect(slow.stats()).toMatchObject({ spanRequests: 1, uniqueSpans: 1 });
    expect(state).toBe("pending");
    await slow.close();
    expect(await answer).toBe("closed");
  });
});
