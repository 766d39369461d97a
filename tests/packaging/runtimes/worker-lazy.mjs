// Cloudflare Workers: the SDK built on the first request of the isolate and kept for the next ones.
import { createSvc, flush, handle, logged } from "./scenario.mjs";

let app;

export default {
  async fetch(request, env, ctx) {
    const name = new URL(request.url).searchParams.get("name");
    if (!name) return Response.json({ logged });
    app ??= createSvc(env);
    const traceId = await handle(app, name);
    ctx.waitUntil(flush(app));
    return Response.json({ traceId });
  },
};
