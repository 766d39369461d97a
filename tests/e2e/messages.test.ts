import { inspect } from "node:util";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcAPIError, SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { describe, expect, it, onTestFinished } from "vitest";
import { type ReplyFn, startServer } from "../support/http-server.ts";
import { type CapturedLog, captureLogs } from "../support/logs.ts";

// The messages a new user meets first, one test per situation: each names what failed (host, path with real
// values, status or error code), what became of the data (with true counts) and what to do.

const KEYS = { publicKey: "pk-test", secretKey: "sk-test-secret" };
const QUICK = { flushTimeout: 2, flushInterval: 3600 };

async function server(reply?: ReplyFn) {
  const started = await startServer(reply);
  onTestFinished(started.close);
  return started;
}

/** An address on 127.0.0.1 where nothing listens. */
async function closedAddress(): Promise<string> {
  const probe = await startServer();
  await probe.close();
  return probe.url;
}

function lines(logs: CapturedLog[], level: CapturedLog["level"]): string[] {
  return logs.filter((l) => l.level === level).map((l) => l.message);
}

function spans(processor: SvcSpanProcessor, names: string[]): void {
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("svc-sdk");
  for (const name of names) tracer.startSpan(name).end();
}

describe("messages of the first hour", () => {
  it("a 401 is sent once; the lost spans and scores are counted, with the keys to check", async () => {
    const logs = captureLogs();
    const sink = await server(() => ({ status: 401, json: { message: "Invalid credentials" } }));
    const processor = new SvcSpanProcessor({ baseUrl: sink.url, ...KEYS, ...QUICK }, {});
    const svc = new SvcClient({ baseUrl: sink.url, ...KEYS, ...QUICK });
    const host = new URL(sink.url).host;

    spans(processor, ["a", "b", "c"]);
    await processor.forceFlush();
    svc.score.create({ name: "accuracy", value: 1, traceId: "trace-1" });
    await svc.flush();

    expect(sink.seen.map((r) => r.path)).toEqual(["/api/public/otel/v1/traces", "/api/public/scores"]);
    const hint = "Check the public and secret keys (SVC_PUBLIC_KEY, SVC_SECRET_KEY)";
    expect(lines(logs, "error")).toEqual([
      expect.stringContaining(
        `SvcSpanProcessor: spans dropped, the server refused the keys: 3 spans: HTTP 401 from ${host} POST /api/public/otel/v1/traces`,
      ),
      expect.stringContaining(
        `ScoreManager: scores dropped, the server refused the keys: 1 score: HTTP 401 from ${host} POST /api/public/scores`,
      ),
    ]);
    for (const line of lines(logs, "error")) expect(line).toContain(hint);
  });

  it("a refused connection names the code, host and path, what happens to the data, and what to check", async () => {
    const logs = captureLogs();
    const address = await closedAddress();
    const host = new URL(address).host;
    const svc = new SvcClient({ baseUrl: address, ...KEYS, ...QUICK });

    const error = await svc.api.prompts.get("greeting", {}, { maxRetries: 0 }).catch((e: unknown) => e);
    svc.score.create({ name: "accuracy", value: 1, traceId: "trace-1" });
    await svc.flush();

    expect(error).toBeInstanceOf(SvcAPIError);
    expect((error as Error).message).toBe(
      `Request failed calling GET /api/public/v2/prompts/greeting on ${host}: ECONNREFUSED. Check that the server at ${host} is running and reachable, and that the base URL (baseUrl or SVC_BASE_URL) points at it.`,
    );
    expect(lines(logs, "warn")).toEqual([
      expect.stringMatching(
        new RegExp(
          `ScoreManager: cannot deliver scores: ECONNREFUSED on POST ${host}/api/public/scores\\. 1 score kept and retried \\(next attempt in [\\d.]+ s, 1 score waiting\\); .*Check that the server at ${host} is running`,
        ),
      ),
      expect.stringContaining("ScoreManager: flush() gave up after 2 s with 1 score not yet delivered"),
    ]);
    await svc.shutdown();
    expect(lines(logs, "error")).toEqual([
      expect.stringContaining(
        `ScoreManager: scores dropped, not delivered before shutdown: 1 score: the shutdown deadline passed before they could be delivered; last failure: ECONNREFUSED on POST ${host}/api/public/scores`,
      ),
    ]);
  });

  it("missing keys give one warning at construction, and no span or score goes out with empty credentials", async () => {
    const logs = captureLogs();
    const sink = await server(() => ({ status: 401, json: { message: "no credentials" } }));
    const processor = new SvcSpanProcessor({ baseUrl: sink.url, ...QUICK }, {});
    const svc = new SvcClient({ baseUrl: sink.url, ...QUICK });
    const constructionWarnings = lines(logs, "warn");

    spans(processor, ["a"]);
    await processor.forceFlush();
    svc.score.create({ name: "accuracy", value: 1, traceId: "trace-1" });
    await svc.flush();
    const error = await svc.api.prompts.get("greeting").catch((e: unknown) => e);

    expect(constructionWarnings).toEqual([
      "[Svc SDK] SvcSpanProcessor: no publicKey and secretKey; until both keys are set, no span is sent (each is counted as dropped). Pass publicKey (or SVC_PUBLIC_KEY) and secretKey (or SVC_SECRET_KEY).",
      "[Svc SDK] SvcClient: no publicKey and secretKey; until both keys are set, REST calls go out without credentials (the server answers 401) and scores are not sent. Pass publicKey (or SVC_PUBLIC_KEY) and secretKey (or SVC_SECRET_KEY).",
    ]);
    expect(sink.seen.map((r) => [r.path, r.headers.authorization])).toEqual([
      ["/api/public/v2/prompts/greeting", undefined],
    ]);
    expect((error as Error).message).toContain(
      "The client has no keys, so the request carried none: pass publicKey and secretKey",
    );
    expect(lines(logs, "error")).toEqual([
      expect.stringContaining("SvcSpanProcessor: spans dropped, could not be sent: 1 span: no credentials"),
      expect.stringContaining("ScoreManager: scores dropped, could not be sent: 1 score: the client has no keys"),
    ]);
  });

  it("an error names the path with its real values, also when the call was never sent", async () => {
    const sink = await server(() => ({ status: 404, json: { message: "Prompt not found" } }));
    const svc = new SvcClient({ baseUrl: sink.url, ...KEYS });
    captureLogs();
    const invalid = new SvcClient({ baseUrl: "htp:/x", ...KEYS });

    const notFound = await svc.api.prompts.get("my prompt", { label: "production" }).catch((e: unknown) => e);
    const notSent = await invalid.api.prompts.get("my prompt").catch((e: unknown) => e);

    expect((notFound as Error).message).toBe(
      `Status 404 from GET /api/public/v2/prompts/my%20prompt on ${new URL(sink.url).host}: Prompt not found`,
    );
    expect((notSent as Error).message).toBe(
      'Request not sent calling GET /api/public/v2/prompts/my%20prompt: base URL "htp:/x" has the unsupported scheme htp (use http or https). Pass a valid http(s) address as baseUrl or set SVC_BASE_URL.',
    );
  });

  it("a base URL that is not http(s) is reported at construction, with credentials redacted, and nothing is sent", async () => {
    const logs = captureLogs();

    const svc = new SvcClient({ baseUrl: "htp://admin:hunter22@svc.example.com", ...KEYS, ...QUICK });
    svc.score.create({ name: "accuracy", value: 1, traceId: "trace-1" });
    await svc.shutdown();

    expect(lines(logs, "error")).toEqual([
      '[Svc SDK] SvcClient: the base URL "htp://[redacted]@svc.example.com" has the unsupported scheme htp (use http or https); nothing will be sent. Pass baseUrl or set SVC_BASE_URL.',
      expect.stringContaining("ScoreManager: scores dropped, could not be sent: 1 score: base URL"),
    ]);
    expect(logs.map((l) => l.message).join("\n")).not.toContain("hunter22");
  });

  it("a SvcAPIError prints compactly: name, message, stack, status and a short body excerpt", async () => {
    const huge = { message: "Bad request", detail: "x".repeat(10_000), nested: { deep: [1, 2, 3] } };
    const sink = await server(() => ({ status: 400, json: huge }));
    const svc = new SvcClient({ baseUrl: sink.url, ...KEYS });

    const error = await svc.api.prompts.get("greeting").catch((e: unknown) => e);
    const printed = inspect(error);
    const beyondStack = printed.split("\n").filter((line) => !/^\s+at /.test(line));

    expect(beyondStack).toEqual([
      `BadRequestError: Status 400 from GET /api/public/v2/prompts/greeting on ${new URL(sink.url).host}: Bad request`,
      "  statusCode: 400",
      expect.stringMatching(/^ {2}body: \{"message":"Bad request","detail":"x+…$/),
    ]);
    expect(printed.length).toBeLessThan(3_000);
  });
});
