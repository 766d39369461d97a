import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { type SvcAPI, SvcClient } from "@svc/client";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { setSvcTracerProvider } from "@svc/tracing";

/** The SDK wired to a dev server: a registered tracer provider with the span processor, and a client. */
export interface E2eSetup {
  server: DevServer;
  svc: SvcClient;
  processor: SvcSpanProcessor;
  provider: NodeTracerProvider;
  /** Sends every ended span and queued score, so that reads see them. */
  flush(): Promise<void>;
  /** Observations of a trace, every field group. */
  observations(traceId: string): Promise<SvcAPI.ObservationV2[]>;
  close(): Promise<void>;
}

/** Starts a dev server and points a span processor and a client at it (call once per file, in `beforeAll`). */
export async function startE2e(params: SvcSpanProcessorParams = {}): Promise<E2eSetup> {
  const server = await startDevServer({ port: 0 });
  const credentials = { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey };
  const processor = new SvcSpanProcessor({ ...credentials, ...params }, {});
  const provider = new NodeTracerProvider({ spanProcessors: [processor as unknown as SpanProcessor] });
  provider.register();
  setSvcTracerProvider(provider);
  const svc = new SvcClient(credentials);
  return {
    server,
    svc,
    processor,
    provider,
    async flush() {
      await provider.forceFlush();
      await svc.score.flush();
    },
    async observations(traceId) {
      const fields = "core,basic,time,io,metadata,model,usage,prompt,metrics,trace_context";
      return (await svc.api.observations.getMany({ traceId, fields, limit: 1000 })).data;
    },
    async close() {
      setSvcTracerProvider(null);
      await provider.shutdown();
      await svc.score.shutdown();
      await server.close();
    },
  };
}

/** The one observation with this name; fails loudly when there is none or several. */
export function byName(observations: SvcAPI.ObservationV2[], name: string): SvcAPI.ObservationV2 {
  const hits = observations.filter((o) => o.name === name);
  if (hits.length !== 1) {
    throw new Error(`expected one observation named ${name}, found ${hits.length}: ${observations.map((o) => o.name)}`);
  }
  return hits[0]!;
}
