import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { onTestFinished } from "vitest";
import { type Reply, type SeenRequest, startServer, type TestServer } from "./http-server.ts";

/** What a stand-in server does: accept (200), fail (503), or take requests and never answer. */
export type ServerMode = "up" | "down" | "silent";

/** A loopback server whose mode the test switches, with what it accepted (answered 200) listed apart. */
export interface SpillServer {
  server: TestServer;
  url: string;
  mode: ServerMode;
  /** Names of the spans in the OTLP requests answered 200, one per delivery. */
  acceptedSpans: string[];
  /** Names of the scores in the score requests answered 200, one per delivery. */
  acceptedScores: string[];
  /** Requests answered 200. */
  accepted: SeenRequest[];
}

/** Starts a server in `mode`; closed when the test ends. */
export async function startSpillServer(mode: ServerMode, delayMs = 0): Promise<SpillServer> {
  const state: SpillServer = {
    server: undefined as unknown as TestServer,
    url: "",
    mode,
    acceptedSpans: [],
    acceptedScores: [],
    accepted: [],
  };
  const server = await startServer((req) => {
    if (state.mode === "silent") return new Promise<Reply>(() => {});
    if (state.mode === "down") return { status: 503, json: { message: "unavailable" } };
    state.accepted.push(req);
    if (req.path === "/api/public/otel/v1/traces") state.acceptedSpans.push(...spanNames(req.json));
    if (req.path === "/api/public/scores")
      state.acceptedScores.push(...(req.json as { name: string }[]).map((score) => score.name));
    return { status: 200, json: {}, delayMs };
  });
  onTestFinished(() => server.close());
  state.server = server;
  state.url = server.url;
  return state;
}

function spanNames(body: unknown): string[] {
  const names: string[] = [];
  const request = body as { resourceSpans?: { scopeSpans?: { spans?: { name: string }[] }[] }[] };
  for (const rs of request.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) names.push(span.name);
  return names;
}

/** A new empty directory, removed when the test ends. */
export function spillDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-spill-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The batch files of a spill directory (claimed or not). */
export function batchFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => /\.batch(\.claimed\.|$)/.test(name));
}

/** The items in a directory's batch files of one kind, as their names count them. */
export function itemsOnDisk(dir: string, kind: "spans" | "scores"): number {
  return batchFiles(dir)
    .filter((name) => name.startsWith(`${kind}.`))
    .reduce((sum, name) => sum + Number(name.split(".")[3]), 0);
}

/** Every spill file's content as text, bodies gunzipped where they are gzip. */
export function spilledTexts(dir: string): string[] {
  return batchFiles(dir).map((name) => {
    const data = readFileSync(join(dir, name));
    const headerEnd = data.indexOf(10, data.indexOf(10) + 1);
    const header = data.subarray(0, headerEnd).toString("utf8");
    const body = data.subarray(headerEnd + 1);
    return header + (/"contentEncoding":"gzip"/.test(header) ? gunzipSync(body) : body).toString("utf8");
  });
}

/** Each value of a list with how many times it occurs, for the values that occur more than once. */
export function repeated(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 1));
}
