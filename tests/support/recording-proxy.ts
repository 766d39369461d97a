import { createServer, request } from "node:http";
import { listenOnLoopback } from "./http-server.ts";

/** What the proxy saw of one request. */
export interface ProxiedRequest {
  method: string;
  path: string;
  userAgent: string | undefined;
  contentEncoding: string | undefined;
  origin: string | undefined;
  status: number;
}

/**
 * A loopback proxy in front of a server (the dev server) that records the method, path, user agent and content
 * encoding of every request it forwards, as they arrived: what the server stores does not show how it was sent.
 */
export async function startRecordingProxy(target: string) {
  const seen: ProxiedRequest[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        seen.push({
          method: req.method ?? "",
          path: (req.url ?? "").split("?")[0] ?? "",
          userAgent: req.headers["user-agent"],
          contentEncoding: req.headers["content-encoding"],
          origin: req.headers.origin,
          status: answer.statusCode ?? 0,
        });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  return { ...(await listenOnLoopback(server)), seen };
}

export type RecordingProxy = Awaited<ReturnType<typeof startRecordingProxy>>;
