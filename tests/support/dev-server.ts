import { type DevServer, type DevServerOptions, startDevServer } from "@svc/dev-server";
import { onTestFinished } from "vitest";

/** An answer of the dev server, with the JSON body parsed (undefined when empty or not JSON). */
export interface DevAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer shapes
  body: any;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** `false` sends no Authorization header; a string replaces it. Default: Basic with the server's keys. */
  auth?: false | string;
}

/** A dev server for one test, with a small request helper. */
export interface TestDevServer extends DevServer {
  request(method: string, path: string, options?: RequestOptions): Promise<DevAnswer>;
  /** Basic authorization header value for the server's keys. */
  basicAuth: string;
}

/** Starts a dev server on 127.0.0.1 (free port) that is closed when the current test finishes. */
export async function useDevServer(options: DevServerOptions = {}): Promise<TestDevServer> {
  const server = await startDevServer({ port: 0, ...options });
  onTestFinished(() => server.close());
  const basicAuth = `Basic ${Buffer.from(`${server.publicKey}:${server.secretKey}`).toString("base64")}`;
  return {
    ...server,
    basicAuth,
    async request(method, path, { body, headers = {}, auth } = {}) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(auth === false ? {} : { authorization: auth ?? basicAuth }),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/** A span for {@link otlpJsonExport}. Times are epoch milliseconds. */
export interface SpanSpec {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs?: number;
  endMs?: number;
  attributes?: Record<string, string | number | boolean | string[]>;
  status?: { code: number; message?: string };
}

function anyValue(value: string | number | boolean | string[]): Record<string, unknown> {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => ({ stringValue: v })) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: value };
}

/** Builds an OTLP/JSON export request holding the given spans under the `svc-sdk` scope. */
export function otlpJsonExport(spans: SpanSpec[], scopeName = "svc-sdk") {
  const now = Date.now();
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "test" } }] },
        scopeSpans: [
          {
            scope: { name: scopeName, version: "6.0.0" },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId,
              name: s.name,
              kind: 1,
              startTimeUnixNano: `${BigInt(s.startMs ?? now) * 1_000_000n}`,
              endTimeUnixNano: `${BigInt(s.endMs ?? (s.startMs ?? now) + 5) * 1_000_000n}`,
              attributes: Object.entries(s.attributes ?? {}).map(([key, value]) => ({ key, value: anyValue(value) })),
              status: s.status ?? { code: 0 },
              events: [],
            })),
          },
        ],
      },
    ],
  };
}

/** A random lower-case hex id of the given byte length (16 for trace ids, 8 for span ids). */
export function hexId(bytes: 16 | 8): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
