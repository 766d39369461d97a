// The baseline of the long-isolate scenario: the same two requests per request (a traces export and a score), sent
// with plain fetch in ctx.waitUntil, without the SDK. What workerd itself keeps per request.
import { env } from "cloudflare:workers";

export default {
  async fetch(request, _env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return Response.json({});
    const n = Number(url.searchParams.get("n"));
    const traceId = n.toString(16).padStart(32, "0");
    const span = (spanId, name) => ({ traceId, spanId, name, startTimeUnixNano: "1", endTimeUnixNano: "2" });
    const traces = {
      resourceSpans: [
        {
          scopeSpans: [
            { spans: [span(`${"1".repeat(15)}${n % 10}`, "request"), span(`${"2".repeat(15)}${n % 10}`, "llm-call")] },
          ],
        },
      ],
    };
    const score = [{ id: `s-${n}`, name: "quality", value: 1, traceId }];
    const post = (path, body) =>
      fetch(`${env.SVC_BASE_URL}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.arrayBuffer());
    ctx.waitUntil(Promise.all([post("/api/public/otel/v1/traces", traces), post("/api/public/scores", score)]));
    return new Response("ok");
  },
};
