// A Deno server: the SDK built at module scope, spans and scores sent in the background between requests, and
// everything still queued sent when the process is asked to stop.
import { createSvc, handle, logged, shutdown } from "./scenario.mjs";

const app = createSvc(Deno.env.toObject());

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(JSON.stringify({ port })) },
  async (request) => {
    const name = new URL(request.url).searchParams.get("name");
    if (!name) return Response.json({ logged });
    return Response.json({ traceId: await handle(app, name) });
  },
);

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await shutdown(app);
  console.log(JSON.stringify({ logged }));
  Deno.exit(0);
});
