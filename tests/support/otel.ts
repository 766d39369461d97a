import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { onTestFinished, vi } from "vitest";
import type { TestServer } from "./http-server.ts";

type Env = Record<string, string | undefined>;

/** A tracer provider whose only processor is a SvcSpanProcessor pointed at the test server. */
export function svcProvider(server: Pick<TestServer, "url">, params: SvcSpanProcessorParams = {}, env: Env = {}) {
  const processor = new SvcSpanProcessor(
    { baseUrl: server.url, publicKey: "pk-test", secretKey: "sk-test", ...params },
    env,
  );
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  onTestFinished(() => provider.shutdown());
  return {
    processor,
    provider,
    svc: provider.getTracer("svc-sdk"),
    tracer: (scope: string) => provider.getTracer(scope),
  };
}

/** Requests the server saw on the OTLP traces route. */
export function otlpRequests(server: TestServer) {
  return server.seen.filter((r) => r.path === "/api/public/otel/v1/traces");
}

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** Every span in every OTLP request the server saw, in arrival order. */
export function exportedSpans(server: TestServer): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const request of otlpRequests(server)) {
    const body = request.json as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
    for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
  }
  return spans;
}

/** The attributes of an exported span as a plain object of their values. */
export function attributesOf(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(span.attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
}

/** Waits (bounded) until the server has seen at least `count` OTLP requests. */
export async function waitForOtlpRequests(server: TestServer, count: number, timeout = 5000): Promise<void> {
  await vi.waitFor(
    () => {
      if (otlpRequests(server).length < count) throw new Error(`saw ${otlpRequests(server).length} of ${count}`);
    },
    { timeout, interval: 5 },
  );
}
