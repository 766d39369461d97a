// Cloudflare Workers: the SDK built at module scope; each request flushes in ctx.waitUntil after its response.
import { env } from "cloudflare:workers";
import { createSvc, flush, handle, logged } from "./scenario.mjs";

const app = createSvc(env);

export default {
  async fetch(request, _env, ctx) {
    const name = new URL(request.url).searchParams.get("name");
    if (!name) return Response.json({ logged });
    const traceId = await handle(app, name);
    ctx.waitUntil(flush(app));
    return Response.json({ traceId });
  },
};
