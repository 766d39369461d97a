// A Bun server: the SDK built at module scope, spans and scores sent in the background between requests, and
// everything still queued sent when the process is asked to stop.
import { createSvc, handle, logged, shutdown } from "./scenario.mjs";

const app = createSvc(process.env);

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const name = new URL(request.url).searchParams.get("name");
    if (!name) return Response.json({ logged });
    return Response.json({ traceId: await handle(app, name) });
  },
});
console.log(JSON.stringify({ port: server.port }));

process.once("SIGTERM", async () => {
  await server.stop();
  await shutdown(app);
  console.log(JSON.stringify({ logged }));
  process.exit(0);
});
