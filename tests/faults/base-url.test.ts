import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TRACE_ID = "0123456789abcdef0123456789abcdef";

/** The last error of span delivery and of score delivery after one span and one score were sent to `baseUrl`. */
async function lastErrors(baseUrl: string) {
  const processor = new SvcSpanProcessor({ baseUrl, publicKey: "pk", secretKey: "sk", flushTimeout: 5 }, {});
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  const svc = new SvcClient({ baseUrl, publicKey: "pk", secretKey: "sk", flushTimeout: 5 });
  onTestFinished(() => svc.shutdown());

  provider.getTracer("svc-sdk").startSpan("work").end();
  svc.score.create({ name: "accuracy", value: 1, traceId: TRACE_ID });
  await Promise.all([processor.forceFlush(), svc.flush()]);

  return { spans: processor.health().lastError, scores: svc.health().score.lastError };
}

describe("a base URL that is not a valid http(s) URL", () => {
  it.each([
    ["127.0.0.1:3000", "http://127.0.0.1:3000", "127.0.0.1:3000"],
    ["http//127.0.0.1:3000", "http://127.0.0.1:3000", "127.0.0.1:3000"],
    ["localhost:3000", "http://localhost:3000", "localhost:3000"],
    ["svc.example.com", "https://svc.example.com", "svc.example.com"],
  ])(
    "%s: fills lastError the same way in the processor and the client, with the real host and the fix",
    async (given, fix, host) => {
      const logs = captureLogs();

      const { spans, scores } = await lastErrors(given);

      const expected = {
        kind: "invalid-url",
        host,
        description: expect.stringContaining(`did you mean ${fix}?`),
        at: expect.stringMatching(ISO),
      };
      expect(spans).toEqual(expected);
      expect(scores).toEqual(expected);
      expect({ ...spans, at: "" }).toEqual({ ...scores, at: "" });
      const constructionErrors = logs.filter((l) => l.level === "error" && l.message.includes("nothing will be sent"));
      expect(constructionErrors.map((l) => l.message)).toEqual([
        expect.stringContaining(`did you mean ${fix}?`),
        expect.stringContaining(`did you mean ${fix}?`),
      ]);
    },
  );

  it("has no suggestion for text that is no address at all", async () => {
    captureLogs();

    const { spans, scores } = await lastErrors("not a url");

    expect(spans).toMatchObject({ kind: "invalid-url", description: 'base URL "not a url" is not a valid URL' });
    expect(spans?.host).toBeUndefined();
    expect({ ...spans, at: "" }).toEqual({ ...scores, at: "" });
  });
});

describe("a base URL that ends in /api/public", () => {
  it("is used without that suffix, with one warning per component, so that requests reach the routes", async () => {
    const server = await startServer();
    onTestFinished(server.close);
    const logs = captureLogs();

    const { spans, scores } = await lastErrors(`${server.url}/api/public/`);

    expect(spans).toBeUndefined();
    expect(scores).toBeUndefined();
    expect(server.seen.map((r) => r.url).sort()).toEqual(["/api/public/otel/v1/traces", "/api/public/scores"]);
    const warnings = logs.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings).toEqual([
      `[Svc SDK] SvcSpanProcessor: the base URL ${server.url}/api/public ends in /api/public, which the SDK adds to every route; using ${server.url}.`,
      `[Svc SDK] SvcClient: the base URL ${server.url}/api/public ends in /api/public, which the SDK adds to every route; using ${server.url}.`,
    ]);
  });
});

describe("counts in delivery log lines", () => {
  it("say 1 score and 1 span, not 1 scores", async () => {
    const logs = captureLogs();

    await lastErrors("127.0.0.1:3000");

    const lines = logs.map((l) => l.message).filter((m) => m.includes("dropped"));
    expect(lines.sort()).toEqual([
      expect.stringContaining("ScoreManager: scores dropped, could not be sent: 1 score: base URL"),
      expect.stringContaining("SvcSpanProcessor: spans dropped, could not be sent: 1 span: base URL"),
    ]);
  });
});
