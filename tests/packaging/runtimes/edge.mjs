// Vercel Edge: the SDK built at module scope; each request flushes in waitUntil after its response.
import { createSvc, flush, handle, logged } from "./scenario.mjs";

const app = createSvc(process.env);

addEventListener("fetch", (event) => {
  const name = new URL(event.request.url).searchParams.get("name");
  if (!name) return event.respondWith(Response.json({ logged }));
  event.respondWith(
    handle(app, name).then((traceId) => {
      event.waitUntil(flush(app));
      return Response.json({ traceId });
    }),
  );
});
