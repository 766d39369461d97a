// The Worker of the long-isolate scenario (long-isolate.ts): the SDK built at module scope, as the serverless guide's
// Cloudflare Workers recipe does; each request records an observation with a generation and a trace score and
// flushes in ctx.waitUntil. `/health` answers with the delivery counts of the isolate.
import { env } from "cloudflare:workers";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcSpanProcessor } from "@svc/otel";
import { configureGlobalLogger, setSvcTracerProvider, startObservation } from "@svc/tracing";

const logged = { warn: 0, error: 0, last: "" };
const keep =
  (level) =>
  (...args) => {
    logged[level]++;
    logged.last = args.map(String).join(" ");
  };
configureGlobalLogger({ sink: { debug() {}, info() {}, warn: keep("warn"), error: keep("error") } });

const options = { baseUrl: env.SVC_BASE_URL, publicKey: "pk-bench", secretKey: "sk-bench" };
const processor = new SvcSpanProcessor(options, env);
setSvcTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
const svc = new SvcClient(options);

export default {
  async fetch(request, _env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return Response.json({ spans: processor.health(), client: svc.health(), logged });
    const root = startObservation("request", { input: { n: url.searchParams.get("n") } });
    root
      .startObservation(
        "llm-call",
        { model: "gpt-test", usageDetails: { input: 12, output: 5 } },
        { asType: "generation" },
      )
      .update({ output: "hi there" })
      .end();
    root.update({ output: "answered" }).end();
    svc.score.trace({ otelSpan: root.otelSpan }, { name: "quality", value: 1 });
    ctx.waitUntil(Promise.all([processor.forceFlush(), svc.flush()]));
    return new Response("ok");
  },
};
