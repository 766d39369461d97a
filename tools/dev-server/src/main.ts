// Standalone dev server: `pnpm dev-server [--port 3000] [--host 127.0.0.1] [--public-key pk] [--secret-key sk]`.
import { parseArgs } from "node:util";
import { DEFAULT_HOST, DEFAULT_PUBLIC_KEY, DEFAULT_SECRET_KEY, startDevServer } from "./index.ts";

const USAGE = `usage: pnpm dev-server [options]
  --port <n>          port to listen on (default 3000, or SVC_DEV_SERVER_PORT; 0 picks a free one)
  --host <address>    interface to listen on (default ${DEFAULT_HOST}: this machine only)
  --public-key <key>  public key to accept (default ${DEFAULT_PUBLIC_KEY})
  --secret-key <key>  secret key to accept (default ${DEFAULT_SECRET_KEY})
  --quiet             do not print a line per request
  --no-validation     do not check requests against the API definition`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function parseCli() {
  try {
    return parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "public-key": { type: "string" },
        "secret-key": { type: "string" },
        quiet: { type: "boolean", default: false },
        "no-validation": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
}

const args = parseCli();
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}

const portText = args.values.port ?? process.env.SVC_DEV_SERVER_PORT ?? "3000";
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got "${portText}"`);

const server = await startDevServer({
  port,
  host: args.values.host,
  publicKey: args.values["public-key"],
  secretKey: args.values["secret-key"],
  apiDefinition: args.values["no-validation"] ? false : undefined,
  onRequest: args.values.quiet ? undefined : (line) => console.log(`${new Date().toISOString()} ${line}`),
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE") fail(`Port ${port} is in use; pass --port <n> or --port 0`);
  throw error;
});

console.log(`svc dev server listening on ${server.url}

  SVC_BASE_URL=${server.url}
  SVC_PUBLIC_KEY=${server.publicKey}
  SVC_SECRET_KEY=${server.secretKey}

Data lives in memory and is gone when the server stops. Ctrl+C stops it.`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    void server.close().then(() => process.exit(0));
  });
}
