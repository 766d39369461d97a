import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** A request as the test server saw it. Gzip bodies are decoded into `body`; `rawBody` keeps the bytes. */
export interface SeenRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Header names and values exactly as sent, in order (to count duplicates). */
  rawHeaders: string[];
  rawBody: Buffer;
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json: unknown;
  /** When the request arrived (`performance.now()`). */
  receivedAt: number;
}

/** What the test server answers. */
export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Drop the connection without an answer. */
  destroy?: boolean;
}

export type ReplyFn = (req: SeenRequest) => Reply | Promise<Reply>;

/** A real HTTP server on 127.0.0.1 with an ephemeral port that records every request. */
export interface TestServer {
  url: string;
  seen: SeenRequest[];
  /** Replaces the reply function. */
  reply(fn: ReplyFn): void;
  close(): Promise<void>;
}

async function readBody(req: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Listens on 127.0.0.1 (`port` 0 picks a free one); gives the base URL and a close that drops open connections. */
export async function listenOnLoopback(server: Server, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts a recording server. Pass the reply function, or use the default `200 {}`; `port` 0 picks a free one. */
export async function startServer(
  replyFn: ReplyFn = () => ({ status: 200, json: {} }),
  { port: wanted = 0 }: { port?: number } = {},
): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  let current = replyFn;
  const server = createServer(async (req, res) => {
    const receivedAt = performance.now();
    const rawBody = await readBody(req);
    const gzipped = /gzip/i.test(String(req.headers["content-encoding"] ?? ""));
    const body = gzipped && rawBody.length > 0 ? gunzipSync(rawBody) : rawBody;
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const request: SeenRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      rawBody,
      body,
      json: parseJson(body),
      receivedAt,
    };
    seen.push(request);
    let reply: Reply;
    try {
      reply = await current(request);
    } catch (error) {
      reply = { status: 500, json: { message: String(error) } };
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const payload = reply.text ?? (reply.json === undefined ? "" : JSON.stringify(reply.json));
    res.writeHead(reply.status ?? 200, {
      "content-type": reply.text === undefined ? "application/json" : "text/plain",
      ...reply.headers,
    });
    res.end(payload);
  });
  const { url, close } = await listenOnLoopback(server, wanted);
  return {
    url,
    seen,
    reply(fn) {
      current = fn;
    },
    close,
  };
}
