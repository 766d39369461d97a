// The gate the outage runs put in front of the sink: it fails, forwards or stays silent, as the run says.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Sink } from "./sink.ts";

/** What the gate does: fail (as its fault says), forward to the sink, or accept and never answer. */
export type Mode = "fail" | "forward" | "silent";
/** How a failing gate fails: HTTP 503, connections refused (nothing listens), or connections reset. */
export type Fault = "503" | "refused" | "reset";

/**
 * A gate in front of the sink: while failing it answers 503 (or resets connections), while silent it accepts
 * requests and never answers, else it forwards each request to the sink as it came.
 */
export async function startGate(
  sink: Sink,
  fault: Fault = "503",
): Promise<{ url: string; set(mode: Mode): void; close(): Promise<void> }> {
  let mode: Mode = "fail";
  const target = new URL(sink.url);
  const server: Server = createServer((req, res) => {
    if (mode === "silent") return;
    if (mode === "fail") {
      if (fault === "reset") {
        req.socket.destroy();
        return;
      }
      req.resume();
      res.writeHead(503, { "content-type": "application/json" });
      res.end('{"message":"unavailable"}');
      return;
    }
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const listening = { value: true };
  return {
    url: `http://127.0.0.1:${port}`,
    set(next) {
      mode = next;
      // "refused": nothing listens while the server is down.
      if (fault === "refused" && next === "fail" && listening.value) {
        server.close();
        server.closeAllConnections();
        listening.value = false;
      } else if (fault === "refused" && next !== "fail" && !listening.value) {
        server.listen(port, "127.0.0.1");
        listening.value = true;
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        if (listening.value) server.close(() => resolve());
        else resolve();
      }),
  };
}
