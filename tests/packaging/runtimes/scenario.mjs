// The one scenario of the runtime matrix, as an app writes it: the SDK built once per process or isolate (at module
// scope), and per request an observation with a nested generation, a trace score and a cached prompt; the recipe
// of each runtime then flushes. Log lines of the SDK are kept so the matrix can check that none is an error.
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { configureGlobalLogger, setSvcTracerProvider, startObservation } from "@svc/tracing";

/** SDK log lines of warning and error level, as `[level, text]`. */
export const logged = [];
const keep =
  (level) =>
  (...args) =>
    logged.push([level, args.map(String).join(" ")]);
configureGlobalLogger({ sink: { debug() {}, info() {}, warn: keep("warn"), error: keep("error") } });

/** Builds the span processor, its tracer provider and the client. `env` holds SVC_BASE_URL and the keys. */
export function createSvc(env) {
  const options = { baseUrl: env.SVC_BASE_URL, publicKey: env.SVC_PUBLIC_KEY, secretKey: env.SVC_SECRET_KEY };
  const processor = new SvcSpanProcessor(options, env);
  setSvcTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
  const svc = new SvcClient(options);
  return { processor, svc };
}

/** One request's work; returns its trace id. */
export async function handle({ svc }, name) {
  const root = startObservation(name, { input: { question: "hello?" } });
  const prompt = await svc.prompt.get("runtime-greeting", { type: "text" });
  root
    .startObservation(
      "llm-call",
      { model: "gpt-test", input: prompt.compile({ name }), usageDetails: { input: 12, output: 5 } },
      { asType: "generation" },
    )
    .update({ output: "hi there" })
    .end();
  root.update({ output: "answered" }).end();
  svc.score.trace({ otelSpan: root.otelSpan }, { name: "quality", value: 1 });
  return root.traceId;
}

/** The flush every recipe ends a request with: spans and scores, together. Never rejects. */
export function flush({ processor, svc }) {
  return Promise.all([processor.forceFlush(), svc.flush()]);
}

/** What a long-lived server does when it stops: sends what is still queued, then stops the SDK. Never rejects. */
export function shutdown({ processor, svc }) {
  return Promise.all([processor.shutdown(), svc.shutdown()]);
}
