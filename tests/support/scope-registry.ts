import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename, join } from "node:path";
import { listenOnLoopback } from "./http-server.ts";

/** A loopback stand-in for the npm registry of one scope, and the requests npm made to it. */
export interface ScopeRegistry {
  url: string;
  /** Package names npm asked for, in order. */
  asked: string[];
  /** Writes an npm user config that takes `scope` from this registry (everything else from the usual one). */
  userConfig(dir: string): string;
  close(): Promise<void>;
}

/**
 * Serves packed tarballs (`name` → path) the way the npm registry serves published packages: a packument per name
 * with the tarball's manifest, integrity and address, and the tarball itself. npm then resolves `@svc/...` by name,
 * as it will once the packages are published, while other packages still come from the registry configured.
 */
export async function startScopeRegistry(scope: string, tarballs: Record<string, string>): Promise<ScopeRegistry> {
  const asked: string[] = [];
  const byFile = new Map(Object.values(tarballs).map((path) => [basename(path), path]));
  let url = "";
  const packuments = new Map<string, unknown>();
  const packument = (name: string) => {
    const path = tarballs[name];
    if (path === undefined) return undefined;
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", path, "package/package.json"], { encoding: "utf8" }));
    const bytes = readFileSync(path);
    const dist = {
      tarball: `${url}/-/${basename(path)}`,
      integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      shasum: createHash("sha1").update(bytes).digest("hex"),
    };
    return { name, "dist-tags": { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } };
  };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    if (path.startsWith("/-/")) {
      const file = byFile.get(path.slice(3));
      if (file === undefined) return void res.writeHead(404).end();
      return void res.writeHead(200, { "content-type": "application/octet-stream" }).end(readFileSync(file));
    }
    const name = path.slice(1);
    asked.push(name);
    if (!packuments.has(name)) packuments.set(name, packument(name));
    const body = packuments.get(name);
    if (body === undefined) return void res.writeHead(404, { "content-type": "application/json" }).end("{}");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  const listening = await listenOnLoopback(server);
  url = listening.url;
  return {
    url,
    asked,
    userConfig(dir) {
      const file = join(dir, "npmrc");
      writeFileSync(file, `${scope}:registry=${url}/\n`);
      return file;
    },
    close: listening.close,
  };
}
