// Node, Bun and Deno, Lambda-style: the SDK built at module scope, each request flushed before it returns.
import { createSvc, flush, handle, logged } from "./scenario.mjs";

const app = createSvc(process.env);

async function handler(name) {
  const traceId = await handle(app, name);
  await flush(app);
  return traceId;
}

const traceIds = [];
for (let i = 1; i <= 3; i++) traceIds.push(await handler(`${process.env.RUN_NAME}-${i}`));
console.log(JSON.stringify({ traceIds, logged }));
