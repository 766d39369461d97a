import { inspect } from "node:util";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcAPIError, SvcClient } from "@svc/client";
import { LogLevel } from "@svc/core";
import { SvcSpanProcessor } from "@svc/otel";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const SECRET = "sk-test-7f3a9c1e5b2d4e6f8a0b";
const URL_PASSWORD = "url-pa55word-9e8d7c";
const CREDENTIAL = Buffer.from(`pk-test:${SECRET}`).toString("base64");

/** Every way an object can be printed or serialized. */
function printed(value: unknown): string {
  const forms: string[] = [inspect(value, { depth: 8 }), inspect(value, { depth: 8, showHidden: true })];
  try {
    forms.push(String(value));
  } catch {
    // Some objects have no text form; the other forms still count.
  }
  try {
    forms.push(JSON.stringify(value) ?? "");
  } catch {
    // A structure JSON cannot hold (a cycle): inspect has printed it already.
  }
  if (value instanceof Error) forms.push(value.message, value.toString(), value.stack ?? "");
  return forms.join("\n");
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(CREDENTIAL);
  expect(text).not.toContain(URL_PASSWORD);
}

async function failingServer(status: number): Promise<TestServer> {
  const server = await startServer(() => ({ status, json: { message: `refused with ${status}` } }));
  onTestFinished(() => server.close());
  return server;
}

describe("the secret key never appears", () => {
  it("in the printed or serialized form of the processor, the client, its managers, svc.api and its settings", async () => {
    const server = await failingServer(200);
    const keys = { baseUrl: server.url, publicKey: "pk-test", secretKey: SECRET };
    const processor = new SvcSpanProcessor(keys, {});
    onTestFinished(() => processor.shutdown());
    const svc = new SvcClient(keys);
    onTestFinished(() => svc.shutdown());

    for (const value of [
      processor,
      svc,
      svc.api,
      svc.api.prompts,
      svc.prompt,
      svc.score,
      svc.dataset,
      svc.media,
      svc.experiment,
      svc.config,
      svc.config.headers,
      svc.health(),
      processor.health(),
    ])
      expectNoSecret(printed(value));
  });

  it("in typed errors of the REST client: message, toString, inspect and JSON, whatever the failure", async () => {
    const refusing = await failingServer(401);
    const svc = new SvcClient({ baseUrl: refusing.url, publicKey: "pk-test", secretKey: SECRET });
    onTestFinished(() => svc.shutdown());
    const down = new SvcClient({ baseUrl: "http://127.0.0.1:1", publicKey: "pk-test", secretKey: SECRET });
    const invalid = new SvcClient({ baseUrl: `ftp://user:${URL_PASSWORD}@x`, publicKey: "pk-test", secretKey: SECRET });

    const errors = await Promise.all([
      svc.api.prompts.get("p", {}).catch((e: unknown) => e),
      down.api.health.health({}, { maxRetries: 0 }).catch((e: unknown) => e),
      invalid.api.health.health().catch((e: unknown) => e),
      svc.prompt.get("p").catch((e: unknown) => e),
    ]);

    for (const error of errors) {
      expect(error).toBeInstanceOf(SvcAPIError);
      expectNoSecret(printed(error));
    }
    expect((errors[0] as Error).message).toMatch(/Status 401 .*[Cc]heck the public and secret keys/);
  });

  it("in any log line at any level, through faults, retries, rejections and debug output", async () => {
    const logs = captureLogs(LogLevel.DEBUG);
    // Spans are accepted (their export logs at debug level); every other call is refused.
    const refusing = await startServer((req) =>
      req.path.includes("/otel/") ? { status: 200, json: {} } : { status: 403, json: { message: "refused" } },
    );
    onTestFinished(() => refusing.close());
    const keys = { baseUrl: refusing.url, publicKey: "pk-test", secretKey: SECRET };
    const processor = new SvcSpanProcessor({ ...keys, flushTimeout: 1, mask: () => SECRET.slice(0, 3) }, {});
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const svc = new SvcClient({ ...keys, flushTimeout: 1 });

    provider
      .getTracer("svc-sdk")
      .startSpan("a", { attributes: { "svc.observation.input": "x" } })
      .end();
    svc.score.create({ name: "s", value: 1, traceId: "t" });
    await svc.prompt.get("p", { fallback: "fallback text" });
    await Promise.all([svc.shutdown(), provider.shutdown()]);
    new SvcClient({ ...keys, baseUrl: `https://user:${URL_PASSWORD}@example.invalid`, timeout: -1 });
    new SvcSpanProcessor({
      ...keys,
      baseUrl: `http://user:${URL_PASSWORD}@remote.example`,
      unknownOption: SECRET,
    } as never);

    expect(logs.length).toBeGreaterThan(5);
    expect(logs.some((l) => l.level === "debug")).toBe(true);
    expectNoSecret(logs.map((l) => l.message).join("\n"));
  });
});

describe("credentials written into the base URL", () => {
  it("are redacted when the client is printed and left out of the links it builds", async () => {
    const server = await startServer(() => ({ status: 200, json: { data: [{ id: "proj-1" }] } }));
    onTestFinished(() => server.close());
    const withCredentials = server.url.replace("http://", `http://user:${URL_PASSWORD}@`);
    const svc = new SvcClient({ baseUrl: withCredentials, publicKey: "pk-test", secretKey: SECRET });

    const link = await svc.getTraceUrl("t-1");

    expect(link).toBe(`${server.url}/project/proj-1/traces/t-1`);
    expect(inspect(svc)).toContain("[redacted]@127.0.0.1");
    expectNoSecret(inspect(svc));
  });
});

describe("a base URL over plain http", () => {
  it("gets one warning for a host that is not local, and none for localhost", () => {
    const logs = captureLogs(LogLevel.INFO);
    const keys = { publicKey: "pk-test", secretKey: SECRET };

    new SvcClient({ ...keys, baseUrl: `http://user:${URL_PASSWORD}@svc.example.com` });
    new SvcClient({ ...keys, baseUrl: "http://localhost:3000" });
    new SvcClient({ ...keys, baseUrl: "https://svc.example.com" });

    expect(logs.map((l) => `${l.level} ${l.message}`)).toEqual([
      "warn [Svc SDK] SvcClient: the base URL http://svc.example.com uses plain http; keys and data travel unencrypted. Use https.",
    ]);
  });
});
