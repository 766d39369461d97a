import { SvcClient, type SvcClientParams } from "@svc/client";
import { onTestFinished } from "vitest";
import { type Reply, type SeenRequest, startServer, type TestServer } from "./http-server.ts";

/** A score as the server received it. */
export type SentScore = Record<string, unknown>;

/** A test server and a client pointed at it, both closed when the test ends. */
export async function scoreSetup(
  reply?: (req: SeenRequest) => Reply | Promise<Reply>,
  params: SvcClientParams = {},
): Promise<{ server: TestServer; svc: SvcClient }> {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk", ...params });
  onTestFinished(() => svc.shutdown());
  return { server, svc };
}

/** The score requests the server saw. */
export function scoreRequests(server: TestServer): SeenRequest[] {
  return server.seen.filter((r) => r.method === "POST" && r.path === "/api/public/scores");
}

/** Every score of every score request the server saw, in arrival order. */
export function sentScores(server: TestServer): SentScore[] {
  return scoreRequests(server).flatMap((r) => r.json as SentScore[]);
}
