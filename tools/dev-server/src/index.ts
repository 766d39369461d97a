import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "./app.ts";
import type { DevKeys } from "./auth.ts";
import { DevStore } from "./store.ts";
import { CLIENT_API_DEFINITION, loadApiValidator } from "./validation.ts";

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Port to listen on; 0 picks a free one. @defaultValue 0 */
  port?: number;
  /** Interface to listen on. Loopback unless you mean to expose the server. @defaultValue "127.0.0.1" */
  host?: string;
  /** Public key the server accepts. @defaultValue "pk-dev" */
  publicKey?: string;
  /** Secret key the server accepts. @defaultValue "sk-dev" */
  secretKey?: string;
  /**
   * OpenAPI file that request parameters and bodies are checked against (400 when they do not fit);
   * `false` turns the checks off. @defaultValue the API definition of `@svc/client`
   */
  apiDefinition?: string | false;
  /** Called with one line per answered request (method, path, status, time). */
  onRequest?: (line: string) => void;
}

/** A running dev server. */
export interface DevServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`; pass it as `baseUrl` to the SDK. */
  url: string;
  publicKey: string;
  secretKey: string;
  /** The data the server holds, for tests that look behind the API. */
  store: DevStore;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

export const DEFAULT_PUBLIC_KEY = "pk-dev";
export const DEFAULT_SECRET_KEY = "sk-dev";
export const DEFAULT_HOST = "127.0.0.1";

/** Starts the server and resolves once it listens. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const keys: DevKeys = {
    publicKey: options.publicKey ?? DEFAULT_PUBLIC_KEY,
    secretKey: options.secretKey ?? DEFAULT_SECRET_KEY,
  };
  const host = options.host ?? DEFAULT_HOST;
  const store = new DevStore({
    id: "dev-project",
    name: "Dev project",
    organization: { id: "dev-org", name: "Dev organization" },
    metadata: {},
  });
  const definition = options.apiDefinition ?? CLIENT_API_DEFINITION;
  const validator = definition === false ? undefined : loadApiValidator(definition);
  let url = "";
  const server = createServer(createApp({ store, keys, validator, baseUrl: () => url, onRequest: options.onRequest }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    ...keys,
    store,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
